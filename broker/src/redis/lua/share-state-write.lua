-- Writes one share-partition's whole state (SPSO, SPEO, in-flight records) in
-- one step, unless a leader with a higher epoch has loaded or written it, or
-- the state changed since the caller loaded it (an admin reset or delete:
-- the version moved). Both keys carry the group's hash tag {<group>}, so this
-- works unchanged on Redis Cluster; the cluster-wide share-group index is
-- written by the caller.
-- KEYS[1]  share-partition state hash       (<prefix>:s:{<group>}:<topicId>/<partition>)
-- KEYS[2]  the group's share-partition set  (<prefix>:s:{<group>}:partitions)
-- ARGV[1]  the caller's leader epoch of the partition
-- ARGV[2]  the state as JSON
-- ARGV[3]  `<topicId>/<partition>` (member of KEYS[2])
-- ARGV[4]  the version the caller loaded or last wrote
-- returns  {1, new version} written, {0, stored epoch} fenced, {2, version} changed meanwhile
local mine = tonumber(ARGV[1])
local stored = tonumber(redis.call('HGET', KEYS[1], 'leaderEpoch') or '-1')
if stored > mine then return {0, stored} end
local version = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if version ~= tonumber(ARGV[4]) then return {2, version} end
redis.call('HSET', KEYS[1], 'leaderEpoch', ARGV[1], 'state', ARGV[2], 'version', version + 1)
redis.call('SADD', KEYS[2], ARGV[3])
return {1, version + 1}
