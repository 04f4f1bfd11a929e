-- Ends a compaction pass with one atomic swap inside the partition's hash
-- slot: the scratch stream becomes the compacted prefix, the uncompacted log
-- loses the batches below the new clean point, and the clean point moves.
-- Readers see either the old pair of streams or the new one, never a mix.
-- Batches that fell below the log start while the pass ran (retention,
-- DeleteRecords) are trimmed from the new prefix, keeping the one that
-- contains the log start.
-- KEYS[1]  partition meta hash       <prefix>:p:{<tag>}:meta
-- KEYS[2]  uncompacted log stream    <prefix>:p:{<tag>}:log
-- KEYS[3]  compacted prefix stream   <prefix>:p:{<tag>}:clog
-- KEYS[4]  scratch stream            <prefix>:p:{<tag>}:clog-new
-- ARGV[1]  caller's leader epoch (decimal)
-- ARGV[2]  pass token
-- ARGV[3]  new clean point: the base offset of the first batch not compacted
-- returns  1, or an error reply 'FENCED epoch <current>' / 'FENCED cleaning'
local epoch = redis.call('HGET', KEYS[1], 'leaderEpoch') or '0'
if epoch ~= ARGV[1] then
  return redis.error_reply('FENCED epoch ' .. epoch)
end
if redis.call('HGET', KEYS[1], 'cleaning') ~= ARGV[2] then
  return redis.error_reply('FENCED cleaning')
end
if redis.call('EXISTS', KEYS[4]) == 1 then
  redis.call('RENAME', KEYS[4], KEYS[3])
else
  redis.call('DEL', KEYS[3])
end
redis.call('XTRIM', KEYS[2], 'MINID', ARGV[3] .. '-0')
redis.call('HSET', KEYS[1], 'cleanedTo', ARGV[3])
redis.call('HDEL', KEYS[1], 'cleaning')
-- offsets stay decimal strings: Lua numbers print as 1e+14 and above
local start = redis.call('HGET', KEYS[1], 'logStartOffset') or '0'
if start ~= '0' and redis.call('EXISTS', KEYS[3]) == 1 then
  local containing = redis.call('XREVRANGE', KEYS[3], start .. '-1', '-', 'COUNT', 1)
  local keep = start .. '-0'
  if #containing > 0 then keep = containing[1][1] end
  redis.call('XTRIM', KEYS[3], 'MINID', keep)
end
return 1
