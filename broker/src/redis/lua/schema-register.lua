-- Registers a schema under a subject (Schema Registry), atomically: the
-- schema's global id (the one its digest already has, else the next id), then
-- a new version of the subject, unless a live version already holds that id.
-- Two brokers registering the same schema at once get one id.
-- KEYS[1]  next-id string (the last id given out)
-- KEYS[2]  ids hash (id -> schema record JSON)
-- KEYS[3]  digests hash (digest -> id)
-- KEYS[4]  subjects hash (subject -> JSON [[version, id, deleted 0|1], ...], ascending)
-- ARGV[1]  subject
-- ARGV[2]  digest of the schema
-- ARGV[3]  schema record JSON
-- ARGV[4]  the subject's highest version when the caller checked compatibility (0: none)
-- ARGV[5]  IMPORT mode: the id to use ('' = the digest's or a new one)
-- ARGV[6]  IMPORT mode: the version to use ('' = the highest + 1)
-- returns  {'OK', id, version, created 0|1}, or {'CHANGED', highest version},
--          {'ID_TAKEN', id} (ARGV[5] holds another schema), {'VERSION_TAKEN', version}
local raw = redis.call('HGET', KEYS[4], ARGV[1])
local vs = {}
if raw then
  local ok, v = pcall(cjson.decode, raw)
  if ok and type(v) == 'table' then vs = v end
end
local id = ARGV[5] ~= '' and tonumber(ARGV[5]) or tonumber(redis.call('HGET', KEYS[3], ARGV[2]))
local given = ARGV[5] ~= '' and redis.call('HGET', KEYS[2], ARGV[5])
if given and given ~= ARGV[3] then return {'ID_TAKEN', id} end
if id then
  for _, e in ipairs(vs) do
    if tonumber(e[2]) == id and tonumber(e[3]) == 0 then return {'OK', id, tonumber(e[1]), 0} end
  end
end
local highest = 0
if #vs > 0 then highest = tonumber(vs[#vs][1]) end
if ARGV[6] == '' and tonumber(ARGV[4]) ~= highest then return {'CHANGED', highest} end
local version = highest + 1
if ARGV[6] ~= '' then
  version = tonumber(ARGV[6])
  for _, e in ipairs(vs) do
    if tonumber(e[1]) == version then return {'VERSION_TAKEN', version} end
  end
end
if ARGV[5] ~= '' then
  if not given then redis.call('HSET', KEYS[2], ARGV[5], ARGV[3]) end
  redis.call('HSETNX', KEYS[3], ARGV[2], ARGV[5])
  -- ids given out later start above every imported one
  if (tonumber(redis.call('GET', KEYS[1])) or 0) < id then redis.call('SET', KEYS[1], id) end
elseif not id then
  id = redis.call('INCR', KEYS[1])
  redis.call('HSET', KEYS[2], id, ARGV[3])
  redis.call('HSET', KEYS[3], ARGV[2], id)
end
table.insert(vs, {version, id, 0})
table.sort(vs, function(a, b) return tonumber(a[1]) < tonumber(b[1]) end)
redis.call('HSET', KEYS[4], ARGV[1], cjson.encode(vs))
return {'OK', id, version, 1}
