-- Loads one share-partition's state for the broker that now leads the
-- partition, fencing older leaders in the same step: the state hash keeps the
-- leader epoch of the newest leader that loaded or wrote it, and
-- share-state-write.lua refuses writers with a lower epoch.
-- KEYS[1]  share-partition state hash  (<prefix>:s:{<group>}:<topicId>/<partition>)
-- ARGV[1]  the caller's leader epoch of the partition
-- returns  {1, state JSON or false, version}
--          {0, stored epoch} when a newer leader already owns the state
local mine = tonumber(ARGV[1])
local stored = tonumber(redis.call('HGET', KEYS[1], 'leaderEpoch') or '-1')
if stored > mine then return {0, stored} end
local state = redis.call('HGET', KEYS[1], 'state')
if state and stored < mine then redis.call('HSET', KEYS[1], 'leaderEpoch', ARGV[1]) end
return {1, state or false, tonumber(redis.call('HGET', KEYS[1], 'version') or '0')}
