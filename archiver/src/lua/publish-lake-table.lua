-- Publishes the summary of a topic's Delta table (archiver/src/commit.ts, after
-- each commit), never replacing a newer version's summary with an older one.
-- KEYS[1]  <prefix>:lake-tables (hash: topic -> JSON summary)
-- ARGV[1]  topic
-- ARGV[2]  Delta version of the summary
-- ARGV[3]  JSON {"version", "files", "bytes", "lastCommitMs", "table"}
-- returns  1 if stored, 0 if the stored summary is of the same or a newer version
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur then
  local ok, v = pcall(function() return cjson.decode(cur).version end)
  if ok and type(v) == 'number' and v >= tonumber(ARGV[2]) then return 0 end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
