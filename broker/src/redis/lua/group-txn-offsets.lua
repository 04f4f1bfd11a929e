-- Pending transactional offset commits of a consumer group (TxnOffsetCommit),
-- fenced by coordinator epoch exactly as group-write.lua: a writer whose
-- epoch is lower than the group's stored coordinatorEpoch is refused. Only
-- the group's own keys are touched (hash tag {<group>}).
-- KEYS[1]  group meta hash         (<prefix>:g:{<group>}:meta)
-- KEYS[2]  group offsets hash      (<prefix>:g:{<group>}:offsets)
-- KEYS[3]  pending offsets hash    (<prefix>:g:{<group>}:txn-offsets), field <producer id>:<topic>/<partition>
-- ARGV[1]  coordinator epoch of the caller
-- ARGV[2]  operation:
--   pend      ARGV[3..] field/value pairs to set in the pending hash
--   complete  ARGV[3] producer id, ARGV[4] '1' commit / '0' abort: the producer's
--             pending offsets move to the offsets hash (commit) or are dropped
-- returns  {1} / {1, committed field/value list} when written, {0, stored epoch} when refused
local mine = tonumber(ARGV[1])
local stored = tonumber(redis.call('HGET', KEYS[1], 'coordinatorEpoch') or '-1')
if stored > mine then return {0, stored} end
local op = ARGV[2]
local out = {}
if op == 'pend' then
  for i = 3, #ARGV, 1000 do
    redis.call('HSET', KEYS[3], unpack(ARGV, i, math.min(i + 999, #ARGV)))
  end
elseif op == 'complete' then
  local prefix = ARGV[3] .. ':'
  local all = redis.call('HGETALL', KEYS[3])
  for i = 1, #all, 2 do
    local f = all[i]
    if string.sub(f, 1, #prefix) == prefix then
      local tp = string.sub(f, #prefix + 1)
      if ARGV[4] == '1' then
        redis.call('HSET', KEYS[2], tp, all[i + 1])
        out[#out + 1] = tp
        out[#out + 1] = all[i + 1]
      end
      redis.call('HDEL', KEYS[3], f)
    end
  end
else
  return redis.error_reply('unknown group-txn-offsets operation ' .. tostring(op))
end
if stored ~= mine then redis.call('HSET', KEYS[1], 'coordinatorEpoch', ARGV[1]) end
return {1, out}
