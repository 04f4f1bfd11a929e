-- Loads a share group's membership for the coordinator that now owns its
-- slot, fencing older coordinators in the same step (as group-load.lua): the
-- meta hash keeps the coordinator epoch of the newest coordinator that loaded
-- or wrote it, and share-group-write.lua refuses writers with a lower epoch.
-- KEYS[1]  share group meta hash  (<prefix>:s:{<group>}:meta)
-- ARGV[1]  coordinator epoch of the caller (its slot lease's epoch)
-- returns  {1, group JSON or false}, {0, stored epoch} when a newer coordinator owns the group
local mine = tonumber(ARGV[1])
local stored = tonumber(redis.call('HGET', KEYS[1], 'coordinatorEpoch') or '-1')
if stored > mine then return {0, stored} end
local group = redis.call('HGET', KEYS[1], 'group')
if group and stored < mine then redis.call('HSET', KEYS[1], 'coordinatorEpoch', ARGV[1]) end
return {1, group or false}
