-- Loads the state of one transactional id for the coordinator that now owns
-- its slot, and fences out older coordinators in the same step (as
-- group-load.lua does for groups): field coordinatorEpoch keeps the epoch of
-- the newest coordinator that loaded or wrote the id, and txn-write.lua
-- refuses writers with a lower epoch. Only the id's own key is touched
-- (hash tag {<escaped transactional id>}).
-- KEYS[1]  transaction hash  (<prefix>:x:{<id>})
-- ARGV[1]  coordinator epoch of the caller (its slot lease's epoch)
-- returns  {1, field/value list} or {0, stored epoch} when a newer coordinator owns the id
local mine = tonumber(ARGV[1])
local stored = tonumber(redis.call('HGET', KEYS[1], 'coordinatorEpoch') or '-1')
if stored > mine then return {0, stored} end
local all = redis.call('HGETALL', KEYS[1])
if stored < mine and #all > 0 then
  redis.call('HSET', KEYS[1], 'coordinatorEpoch', ARGV[1])
end
return {1, all}
