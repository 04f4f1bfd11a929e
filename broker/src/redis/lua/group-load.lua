-- Loads a group for the coordinator that now owns its slot, and fences out
-- older coordinators in the same step: the group's meta hash keeps the
-- coordinator epoch of the last coordinator that loaded or wrote it
-- (field coordinatorEpoch), and group-write.lua refuses writers with a lower
-- epoch. Only the group's own keys are touched (hash tag {<group>}), so this
-- works unchanged on Redis Cluster.
-- KEYS[1]  group meta hash     (<prefix>:g:{<group>}:meta)
-- KEYS[2]  group offsets hash  (<prefix>:g:{<group>}:offsets)
-- ARGV[1]  coordinator epoch of the caller (its slot lease's epoch)
-- returns  {1, meta field/value list, offsets field/value list}
--          {0, stored epoch} when a newer coordinator already owns the group
local mine = tonumber(ARGV[1])
local stored = tonumber(redis.call('HGET', KEYS[1], 'coordinatorEpoch') or '-1')
if stored > mine then return {0, stored} end
local meta = redis.call('HGETALL', KEYS[1])
local offsets = redis.call('HGETALL', KEYS[2])
-- A group that does not exist yet is not created by a read: its first write claims it.
if stored < mine and (#meta > 0 or #offsets > 0) then
  redis.call('HSET', KEYS[1], 'coordinatorEpoch', ARGV[1])
end
return {1, meta, offsets}
