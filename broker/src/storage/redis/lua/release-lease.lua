-- Deletes a lease only if the caller holds it.
-- KEYS[1]  lease key
-- ARGV[1]  holder (broker instance <nodeId>:<random>)
-- returns  1 if released, 0 otherwise
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
