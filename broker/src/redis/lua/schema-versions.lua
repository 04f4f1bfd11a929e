-- Replaces a subject's versions (Schema Registry soft and hard deletes) if
-- they are still what the caller read: a compare-and-set, so a delete never
-- undoes a version another broker registered meanwhile.
-- KEYS[1]  subjects hash (subject -> JSON [[version, id, deleted 0|1], ...], ascending)
-- ARGV[1]  subject
-- ARGV[2]  the versions the caller read, JSON ('[]' = none)
-- ARGV[3]  the new versions, JSON ('[]' removes the subject)
-- returns  1 when replaced, 0 when the versions had changed
local function norm(s)
  local ok, v = pcall(cjson.decode, s)
  if not ok or type(v) ~= 'table' or #v == 0 then return '[]' end
  return cjson.encode(v)
end
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if norm(cur or '[]') ~= norm(ARGV[2]) then return 0 end
if norm(ARGV[3]) == '[]' then
  redis.call('HDEL', KEYS[1], ARGV[1])
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
end
return 1
