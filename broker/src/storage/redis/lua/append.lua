-- Fenced, atomic append of one Kafka record batch to a partition's stream.
-- The batch is stored only if the writer leads in the partition's current
-- leader epoch and the batch starts exactly where the log ends, so a stale
-- leader can neither overlap earlier offsets nor leave a gap. The producer's
-- idempotence state (epoch, last 5 batches) is written in the same step.
-- KEYS[1]  partition log stream   <prefix>:p:{<topic>/<p>}:log
-- KEYS[2]  partition meta hash    <prefix>:p:{<topic>/<p>}:meta
-- KEYS[3]  producer state hash    <prefix>:p:{<topic>/<p>}:producers
-- ARGV[1]  writer's leader epoch (decimal)
-- ARGV[2]  base offset of the batch (decimal)
-- ARGV[3]  next offset after the batch = base + lastOffsetDelta + 1
-- ARGV[4]  the batch bytes
-- ARGV[5]  producer id, or '' for a batch without one
-- ARGV[6]  the producer's new state (opaque string), ignored when ARGV[5] is ''
-- returns  1, or an error reply 'FENCED epoch <current>' / 'FENCED offset <next>'
local meta = redis.call('HMGET', KEYS[2], 'leaderEpoch', 'next', 'logStartOffset')
local epoch = meta[1] or '0'
if epoch ~= ARGV[1] then
  return redis.error_reply('FENCED epoch ' .. epoch)
end
local nxt = meta[2]
if not nxt then
  -- No stored end yet (a new partition, or a log written before the `next`
  -- field existed): derive it from the newest entry, once.
  local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
  if last then
    local b = last[2][2]
    local b1, b2, b3, b4 = string.byte(b, 24, 27) -- lastOffsetDelta, int32 big-endian at byte 23
    local delta = ((b1 * 256 + b2) * 256 + b3) * 256 + b4
    local base = tonumber(string.match(last[1], '^(%d+)-'))
    nxt = string.format('%d', base + delta + 1)
  else
    nxt = meta[3] or '0'
  end
end
if nxt ~= ARGV[2] then
  return redis.error_reply('FENCED offset ' .. nxt)
end
redis.call('XADD', KEYS[1], ARGV[2] .. '-1', 'b', ARGV[4])
redis.call('HSET', KEYS[2], 'next', ARGV[3])
if ARGV[5] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[5], ARGV[6])
end
return 1
