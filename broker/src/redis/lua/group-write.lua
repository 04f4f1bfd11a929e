-- Every write of a consumer group (metadata, offset commits, offset deletes,
-- group delete), fenced by coordinator epoch: a writer whose epoch is lower
-- than the one stored in the group's meta hash (field coordinatorEpoch) lost
-- the group's slot to a newer coordinator and is refused, so a stale
-- coordinator can never roll group state or offsets back. A writer with a
-- higher epoch (a group it created, or a group deleted meanwhile) stores its
-- epoch. Only the group's own keys are touched (hash tag {<group>}).
-- KEYS[1]  group meta hash     (<prefix>:g:{<group>}:meta)
-- KEYS[2]  group offsets hash  (<prefix>:g:{<group>}:offsets)
-- ARGV[1]  coordinator epoch of the caller
-- ARGV[2]  operation:
--   save            ARGV[3] = n, ARGV[4..3+n] meta fields to delete, then field/value pairs to set in meta
--   commit          field/value pairs to set in offsets
--   delete-offsets  offset fields to delete
--   delete          none: both keys are deleted
-- returns  {1} when written, {0, stored epoch} when refused
local mine = tonumber(ARGV[1])
local stored = tonumber(redis.call('HGET', KEYS[1], 'coordinatorEpoch') or '-1')
if stored > mine then return {0, stored} end
local op = ARGV[2]
-- cmd key ARGV[first..last], at most 1000 arguments per call (Lua's unpack limit); pairs never split
local function chunked(cmd, key, first, last)
  for i = first, last, 1000 do
    redis.call(cmd, key, unpack(ARGV, i, math.min(i + 999, last)))
  end
end
if op == 'delete' then
  redis.call('DEL', KEYS[1], KEYS[2])
  return {1}
end
if op == 'save' then
  local n = tonumber(ARGV[3])
  chunked('HDEL', KEYS[1], 4, 3 + n)
  chunked('HSET', KEYS[1], 4 + n, #ARGV)
elseif op == 'commit' then
  chunked('HSET', KEYS[2], 3, #ARGV)
elseif op == 'delete-offsets' then
  chunked('HDEL', KEYS[2], 3, #ARGV)
else
  return redis.error_reply('unknown group-write operation ' .. tostring(op))
end
if stored ~= mine then redis.call('HSET', KEYS[1], 'coordinatorEpoch', ARGV[1]) end
return {1}
