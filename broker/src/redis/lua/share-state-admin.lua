-- An administrative change of one share-partition's state (AlterShareGroupOffsets,
-- DeleteShareGroupOffsets, DeleteGroups of an empty share group): replaces the
-- state or removes it, and moves its version on, so the leader's copy in
-- memory is refused at its next write (share-state-write.lua) and reloaded.
-- The leader epoch is kept.
-- KEYS[1]  share-partition state hash       (<prefix>:s:{<group>}:<topicId>/<partition>)
-- KEYS[2]  the group's share-partition set  (<prefix>:s:{<group>}:partitions)
-- ARGV[1]  'set' or 'del'
-- ARGV[2]  the state as JSON ('set'), or ''
-- ARGV[3]  `<topicId>/<partition>` (member of KEYS[2])
-- returns  the new version
local version = tonumber(redis.call('HGET', KEYS[1], 'version') or '0') + 1
if ARGV[1] == 'set' then
  redis.call('HSET', KEYS[1], 'state', ARGV[2], 'version', version)
  redis.call('SADD', KEYS[2], ARGV[3])
else
  redis.call('HDEL', KEYS[1], 'state')
  redis.call('HSET', KEYS[1], 'version', version)
  redis.call('SREM', KEYS[2], ARGV[3])
end
return version
