-- Extends many leases in one call, each only if the caller still holds it
-- (common/lease/lease.ts renewLeases). In a Redis Cluster every key of one
-- call is in the same hash slot (the caller groups them).
-- KEYS[1..n]  lease keys
-- ARGV[1]     holder: a broker instance (<nodeId>:<random>) or an archiver id
-- ARGV[2]     ttl in ms
-- returns     one integer per key, in order: 1 if renewed, 0 if held by someone else or expired
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    out[i] = redis.call('PEXPIRE', key, ARGV[2])
  else
    out[i] = 0
  end
end
return out
