-- Starts a compaction pass of one partition: only the leader of the current
-- epoch may; any scratch stream left by an earlier pass (a crashed or fenced
-- cleaner) is dropped, and the pass's token is recorded so that only its
-- writes and its swap are accepted.
-- KEYS[1]  partition meta hash       <prefix>:p:{<tag>}:meta
-- KEYS[2]  scratch stream            <prefix>:p:{<tag>}:clog-new
-- ARGV[1]  caller's leader epoch (decimal)
-- ARGV[2]  pass token (unique per pass)
-- returns  1, or an error reply 'FENCED epoch <current>'
local epoch = redis.call('HGET', KEYS[1], 'leaderEpoch') or '0'
if epoch ~= ARGV[1] then
  return redis.error_reply('FENCED epoch ' .. epoch)
end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[1], 'cleaning', ARGV[2])
return 1
