-- Takes a free group-coordinator slot lease and bumps the slot's coordinator
-- epoch in the same atomic step, so every holder of the slot has a distinct,
-- increasing epoch (group writes are fenced with it). Both keys carry the
-- slot's hash tag {<slot>}.
-- KEYS[1]  slot lease key    (<prefix>:c:{<slot>}:leader)
-- KEYS[2]  slot epoch key    (<prefix>:c:{<slot>}:epoch)
-- ARGV[1]  instance of the caller (<nodeId>:<random>)
-- ARGV[2]  lease ttl in ms
-- returns  the new coordinator epoch (>= 1), or 0 if the lease is held
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('INCR', KEYS[2])
end
return 0
