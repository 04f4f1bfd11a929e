-- Extends a lease only if the caller still holds it (common/lease/lease.ts).
-- KEYS[1]  lease key (a broker's partition or coordinator-slot lease, an archiver's partition lease)
-- ARGV[1]  holder: a broker instance (<nodeId>:<random>) or an archiver id
-- ARGV[2]  ttl in ms
-- returns  1 if renewed, 0 if the lease is held by someone else or expired
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
