-- Appends compacted batches to a pass's scratch stream, only while the pass
-- is the partition's current one (its token is in meta field 'cleaning').
-- KEYS[1]  partition meta hash       <prefix>:p:{<tag>}:meta
-- KEYS[2]  scratch stream            <prefix>:p:{<tag>}:clog-new
-- ARGV[1]  pass token
-- ARGV[2..] triples: entry id '<baseOffset>-1', batch bytes, delete horizon in ms ('' = no tombstones)
-- returns  the number of entries added, or an error reply 'FENCED cleaning'
if redis.call('HGET', KEYS[1], 'cleaning') ~= ARGV[1] then
  return redis.error_reply('FENCED cleaning')
end
local n = 0
for i = 2, #ARGV, 3 do
  if ARGV[i + 2] == '' then
    redis.call('XADD', KEYS[2], ARGV[i], 'b', ARGV[i + 1])
  else
    redis.call('XADD', KEYS[2], ARGV[i], 'b', ARGV[i + 1], 'h', ARGV[i + 2])
  end
  n = n + 1
end
return n
