-- Removes a broker registration only if the caller's instance holds it.
-- KEYS[1]  brokers hash (node id -> registration JSON)
-- ARGV[1]  node id
-- ARGV[2]  instance of the caller
-- returns  1 if removed, 0 otherwise
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if not cur then return 0 end
local ok, reg = pcall(cjson.decode, cur)
if ok and type(reg) == 'table' and reg.instance == ARGV[2] then
  return redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0
