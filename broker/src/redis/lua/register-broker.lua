-- Registers (or re-registers) a broker instance under its node id, unless
-- another instance holds an unexpired registration for that node id (two
-- processes must never share a node id: Kafka refuses a duplicate broker id
-- while the old session is alive).
-- KEYS[1]  brokers hash (node id -> registration JSON)
-- ARGV[1]  node id
-- ARGV[2]  instance of the caller (<nodeId>:<random>)
-- ARGV[3]  registration JSON {nodeId, host, port, rack, instance, expiresAt}
-- ARGV[4]  now, ms since the epoch (the clock expiresAt was computed with)
-- returns  {1} when registered; {0, holder instance, holder expiresAt} when refused
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur then
  local ok, reg = pcall(cjson.decode, cur)
  if ok and type(reg) == 'table' and type(reg.instance) == 'string' and reg.instance ~= ARGV[2] then
    local expires = tonumber(reg.expiresAt) or 0
    if expires > tonumber(ARGV[4]) then
      return {0, reg.instance, math.floor(expires)}
    end
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return {1}
