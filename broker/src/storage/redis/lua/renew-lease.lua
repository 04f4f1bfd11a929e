-- Extends a lease only if the caller still holds it.
-- KEYS[1]  lease key
-- ARGV[1]  holder (broker instance <nodeId>:<random>)
-- ARGV[2]  ttl in ms
-- returns  1 if renewed, 0 if the lease is held by someone else or expired
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
