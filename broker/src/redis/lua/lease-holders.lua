-- Reads the holders of many lease units, and the leader epoch of those that
-- are partitions, in one call (RedisClusterStore.leaseHolders). On a Redis
-- Cluster every key of one call is in the same hash slot (the caller groups
-- units by slot: a partition's lease and meta share its hash tag).
-- KEYS[2i-1]  lease key of unit i     <prefix>:p:{<topic>/<p>}:leader or <prefix>:c:{<slot>}:leader
-- KEYS[2i]    partition meta hash     <prefix>:p:{<topic>/<p>}:meta (unit i's lease key again for a coordinator slot; not read)
-- ARGV[1]     the meta field holding the leader epoch (leaderEpoch)
-- ARGV[1+i]   '1' when unit i is a partition (its epoch is read), '0' otherwise
-- returns     a flat array: holder of unit i at 2i-1 (false when free), its epoch at 2i (false when none)
local out = {}
local n = #KEYS / 2
for i = 1, n do
  out[2 * i - 1] = redis.call('GET', KEYS[2 * i - 1])
  if ARGV[1 + i] == '1' then
    out[2 * i] = redis.call('HGET', KEYS[2 * i], ARGV[1])
  else
    out[2 * i] = false
  end
end
return out
