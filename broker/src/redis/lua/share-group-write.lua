-- Writes (or removes) a share group's membership, fenced by coordinator epoch
-- like group-write.lua: a writer whose epoch is lower than the stored one lost
-- the group's slot and is refused.
-- KEYS[1]  share group meta hash  (<prefix>:s:{<group>}:meta)
-- ARGV[1]  coordinator epoch of the caller
-- ARGV[2]  the group as JSON, or '' to remove it
-- returns  {1} written, {0, stored epoch} refused
local mine = tonumber(ARGV[1])
local stored = tonumber(redis.call('HGET', KEYS[1], 'coordinatorEpoch') or '-1')
if stored > mine then return {0, stored} end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
else
  redis.call('HSET', KEYS[1], 'coordinatorEpoch', ARGV[1], 'group', ARGV[2])
end
return {1}
