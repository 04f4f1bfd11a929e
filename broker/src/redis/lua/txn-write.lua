-- Stores the state of one transactional id, fenced by coordinator epoch: a
-- writer whose epoch is lower than the stored one lost the id's slot to a
-- newer coordinator and is refused, so a stale coordinator can never undo a
-- decided commit or abort. Only the id's own key is touched.
-- KEYS[1]  transaction hash  (<prefix>:x:{<id>})
-- ARGV[1]  coordinator epoch of the caller
-- ARGV[2..] field/value pairs (the whole state)
-- returns  {1} when written, {0, stored epoch} when refused
local mine = tonumber(ARGV[1])
local stored = tonumber(redis.call('HGET', KEYS[1], 'coordinatorEpoch') or '-1')
if stored > mine then return {0, stored} end
redis.call('HSET', KEYS[1], 'coordinatorEpoch', ARGV[1], unpack(ARGV, 2))
return {1}
