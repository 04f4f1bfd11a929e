-- Raises a partition's `archived` watermark (the highest offset committed to
-- the lake), never lowers it (archiver/src/commit.ts publishArchived).
-- KEYS[1]  partition meta hash (<prefix>:p:{<topic>/<p>}:meta)
-- ARGV[1]  archived offset
-- returns  1 if raised, 0 if the stored value was already as high
local c = redis.call('HGET', KEYS[1], 'archived')
if (not c) or tonumber(c) < tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'archived', ARGV[1])
  return 1
end
return 0
