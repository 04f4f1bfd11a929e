-- Forgets idempotent producers that have been silent for producer.id.expiration.ms,
-- only if the caller still leads the partition in the given epoch.
-- KEYS[1]  partition meta hash    <prefix>:p:{<topic>/<p>}:meta
-- KEYS[2]  producer state hash    <prefix>:p:{<topic>/<p>}:producers
-- ARGV[1]  caller's leader epoch (decimal)
-- ARGV[2]  cutoff: states whose last append time (ms, first token) is below it are removed
-- ARGV[3..] producer ids to consider
-- returns  the number of producers removed, or an error reply 'FENCED epoch <current>'
local epoch = redis.call('HGET', KEYS[1], 'leaderEpoch') or '0'
if epoch ~= ARGV[1] then
  return redis.error_reply('FENCED epoch ' .. epoch)
end
local cutoff = tonumber(ARGV[2])
local removed = 0
for i = 3, #ARGV do
  local state = redis.call('HGET', KEYS[2], ARGV[i])
  if state then
    local t = tonumber(string.match(state, '^(%d+)'))
    if t and t < cutoff then
      redis.call('HDEL', KEYS[2], ARGV[i])
      removed = removed + 1
    end
  end
end
return removed
