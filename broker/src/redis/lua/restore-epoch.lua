-- Raises a partition's stored leader epoch back to the epoch its leader took
-- with its lease, when the store lost it: a Redis primary failed over before
-- the HINCRBY reached its replica, so the promoted replica holds an older
-- epoch and every append of the rightful leader would be fenced. Never lowers
-- the epoch, so a newer leader is never undone.
-- KEYS[1]  partition meta hash   <prefix>:p:{<tag>}:meta
-- ARGV[1]  the leader's epoch (decimal)
-- returns  the stored epoch after the call
local cur = tonumber(redis.call('HGET', KEYS[1], 'leaderEpoch') or '0')
local want = tonumber(ARGV[1])
if cur < want then
  redis.call('HSET', KEYS[1], 'leaderEpoch', ARGV[1])
  return want
end
return cur
