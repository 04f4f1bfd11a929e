-- The fence of one append. Sent inside MULTI, as the first of
--   EVALSHA <this script> ...
--   XADD   <log> NOMKSTREAM <base>-1 b <batch>
--   XSETID <log> 18446744073709551615-18446744073709551615
-- so the batch itself never passes through Lua (a script argument costs about
-- 1 us per KiB: 1 ms for a 1 MiB batch, 30x the XADD).
--
-- Fail closed: between appends the stream's last-generated id is the largest
-- id there is (the XSETID that ends every append transaction), so Redis
-- refuses every XADD ("The stream has exhausted the last possible ID") and
-- NOMKSTREAM refuses to create a missing stream. Only
-- this script, when it accepts, opens the stream for exactly one XADD: it
-- lowers the last id to <base>-0 as its very last step. Whatever makes the
-- script not run or not finish (NOSCRIPT after a SCRIPT FLUSH or a failover
-- to a primary without it, a runtime error, a refusal) leaves the last id at
-- the maximum, and the XADD in the same transaction stores nothing. A
-- Redis transaction does not roll back: this is why the XADD's success must
-- depend on what the script did, not on the script's reply.
--
-- A batch is accepted only if the writer leads in the partition's current
-- leader epoch and the batch starts exactly where the log ends: a stale leader
-- can neither overlap earlier offsets nor leave a gap. The new log end and the
-- producer's idempotence state are written in the same transaction, and so
-- are the transaction indexes (only for a batch that opens or ends a
-- transaction; for every other batch ARGV[6] is '' and costs one comparison).
-- Meta field `raised` is kept at '1' (the last id is above the log end):
-- brokers of earlier versions, during a rolling upgrade, lower the last id
-- before their XADD only when it is set.
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

local MAX_ID = '18446744073709551615-18446744073709551615'

local function refuse(why)
  -- A stream last written by an earlier version may still be open (last id =
  -- its newest entry): close it now, so the XADD that follows fails. A
  -- missing stream stays missing (NOMKSTREAM).
  if redis.call('EXISTS', KEYS[1]) == 1 then
    redis.call('XSETID', KEYS[1], MAX_ID)
  end
  return redis.error_reply('FENCED ' .. why)
end

local meta = redis.call('HMGET', KEYS[2], 'leaderEpoch', 'next', 'logStartOffset')
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
-- Accepted. The writes of the other keys come first, `next` after them and
-- the opening of the stream last, so a runtime error anywhere (a key of the
-- wrong type...) leaves the stream closed and, before the meta write, the
-- log end unchanged.
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
if redis.call('EXISTS', KEYS[1]) == 0 then
  -- Created empty (XGROUP ... MKSTREAM, then the group is dropped): the XADD is NOMKSTREAM.
  redis.call('XGROUP', 'CREATE', KEYS[1], 'fence', '$', 'MKSTREAM')
  redis.call('XGROUP', 'DESTROY', KEYS[1], 'fence')
end
redis.call('HSET', KEYS[2], 'next', ARGV[3], 'raised', '1')
-- <base>-0: just below the batch's id <base>-1, and above every entry (all below <base>).
redis.call('XSETID', KEYS[1], ARGV[2] .. '-0')
return 1
