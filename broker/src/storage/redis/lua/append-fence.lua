-- The fence of one append. Sent inside MULTI, right before
--   XADD <log> <base>-1 b <batch>
-- so the batch itself never passes through Lua (a script argument costs about
-- 1 us per KiB: 1 ms for a 1 MiB batch, 30x the XADD). The XADD is made to
-- succeed or fail by the stream's last-generated id:
--   accepted: the last id is already below <base>-1 (it is the previous
--     batch's id), unless a refusal raised it (meta field `raised`): then it
--     is set back to <base>-0 first;
--   rejected: last id := <base>-1, so the XADD is refused ("equal or smaller").
-- A batch is accepted only if the writer leads in the partition's current
-- leader epoch and the batch starts exactly where the log ends: a stale leader
-- can neither overlap earlier offsets nor leave a gap. The new log end and the
-- producer's idempotence state are written in the same transaction, and so
-- are the transaction indexes (only for a batch that opens or ends a
-- transaction; for every other batch ARGV[6] is '' and costs one comparison).
-- KEYS[1]  partition log stream   <prefix>:p:{<topic>/<p>}:log
-- KEYS[2]  partition meta hash    <prefix>:p:{<topic>/<p>}:meta
-- KEYS[3]  producer state hash    <prefix>:p:{<topic>/<p>}:producers
-- KEYS[4]  open transactions hash <prefix>:p:{<topic>/<p>}:txns
-- KEYS[5]  aborted txn index zset <prefix>:p:{<topic>/<p>}:aborted
-- ARGV[1]  writer's leader epoch (decimal)
-- ARGV[2]  base offset of the batch (decimal)
-- ARGV[3]  next offset after the batch = base + lastOffsetDelta + 1
-- ARGV[4]  producer id, or '' for a batch without one
-- ARGV[5]  the producer's new state (opaque string), ignored when ARGV[4] is ''
-- ARGV[6]  transaction change of producer ARGV[4]: '' none; 'b<first>' its
--          transaction opens at offset <first> (HSET KEYS[4]); 'e' a commit
--          marker ends it (HDEL KEYS[4]); 'a<first>' an abort marker ends it
--          (HDEL KEYS[4], and ZADD KEYS[5] score <base> member
--          '<producer id>:<first>:<base>': the aborted range, lastOffset = the marker's offset)
-- returns  1, or an error reply 'FENCED epoch <current>' / 'FENCED offset <next>'

local function refuse(why)
  -- Make the XADD that follows fail. A missing stream is created empty
  -- first (XGROUP ... MKSTREAM, then the group is dropped), since XADD would
  -- otherwise create it with the batch in it.
  if redis.call('EXISTS', KEYS[1]) == 0 then
    redis.call('XGROUP', 'CREATE', KEYS[1], 'fence', '$', 'MKSTREAM')
    redis.call('XGROUP', 'DESTROY', KEYS[1], 'fence')
  end
  -- Fails (harmlessly) when <base>-1 is below the newest entry: then the XADD fails anyway.
  redis.pcall('XSETID', KEYS[1], ARGV[2] .. '-1')
  redis.call('HSET', KEYS[2], 'raised', '1')
  return redis.error_reply('FENCED ' .. why)
end

local meta = redis.call('HMGET', KEYS[2], 'leaderEpoch', 'next', 'logStartOffset', 'raised')
local epoch = meta[1] or '0'
if epoch ~= ARGV[1] then
  return refuse('epoch ' .. epoch)
end
local nxt = meta[2]
if not nxt then
  -- No stored end yet (a new partition, or a log written before the `next`
  -- field existed): derive it from the newest entry, once.
  local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
  if last then
    local b = last[2][2]
    local b1, b2, b3, b4 = string.byte(b, 24, 27) -- lastOffsetDelta, int32 big-endian at byte 23
    local delta = ((b1 * 256 + b2) * 256 + b3) * 256 + b4
    local base = tonumber(string.match(last[1], '^(%d+)-'))
    nxt = string.format('%d', base + delta + 1)
  else
    nxt = meta[3] or '0'
  end
end
if nxt ~= ARGV[2] then
  return refuse('offset ' .. nxt)
end
if meta[4] then
  -- A refusal raised the last id to <refused base>-1; lower it so <base>-1 fits.
  if redis.call('EXISTS', KEYS[1]) == 1 then
    redis.call('XSETID', KEYS[1], ARGV[2] .. '-0')
  end
  redis.call('HDEL', KEYS[2], 'raised')
end
redis.call('HSET', KEYS[2], 'next', ARGV[3])
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[4], ARGV[5])
end
local txn = ARGV[6]
if txn ~= '' then
  local kind = string.sub(txn, 1, 1)
  if kind == 'b' then
    redis.call('HSET', KEYS[4], ARGV[4], string.sub(txn, 2))
  else
    redis.call('HDEL', KEYS[4], ARGV[4])
    if kind == 'a' then
      redis.call('ZADD', KEYS[5], ARGV[2], ARGV[4] .. ':' .. string.sub(txn, 2) .. ':' .. ARGV[2])
    end
  end
end
return 1
