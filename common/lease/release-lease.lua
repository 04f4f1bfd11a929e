-- Deletes a lease only if the caller holds it (common/lease/lease.ts).
-- KEYS[1]  lease key (a broker's partition or coordinator-slot lease, an archiver's partition lease)
-- ARGV[1]  holder: a broker instance (<nodeId>:<random>) or an archiver id
-- returns  1 if released, 0 otherwise
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
