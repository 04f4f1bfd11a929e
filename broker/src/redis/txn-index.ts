// The partition's transaction indexes in Redis (docs/redis-keys.md): `:txns`
// (open transactions) and `:aborted` (aborted ranges, a sorted set scored by
// lastOffset). Both are written only by lua/append-fence.lua, in the append
// transaction of the batch or marker that changes them; this file encodes
// the script's transaction argument and reads the aborted index back.
import type { Redis, Cluster } from 'ioredis';
import type { AbortedTxn, TxnChange } from '../storage/log-store.js';
import { guard } from './stream-entries.js';

/** The fence script's ARGV[6]: '' for every batch that neither opens nor ends a transaction, else b<first> / e / a<first>. */
export function txnArg(t: TxnChange | null | undefined): string {
  if (!t) return '';
  if (t.kind === 'begin') return `b${t.firstOffset}`;
  return t.aborted ? `a${t.aborted.firstOffset}` : 'e';
}

/** An aborted-index member, `<producerId>:<firstOffset>:<lastOffset>`; null when malformed. */
export function parseAborted(m: string): AbortedTxn | null {
  const [pid, first, last] = m.split(':').map(Number);
  if (!Number.isInteger(pid) || !Number.isInteger(first) || !Number.isInteger(last)) return null;
  return { producerId: pid!, firstOffset: first!, lastOffset: last! };
}

/** Aborted ranges with lastOffset >= fromOffset, lastOffset ascending, at most `limit`. */
export async function readAborted(redis: Redis | Cluster, key: string, fromOffset: number, limit: number): Promise<AbortedTxn[]> {
  const members = await guard(redis.zrangebyscore(key, String(fromOffset), '+inf', 'LIMIT', 0, limit));
  return members.map(parseAborted).filter((a): a is AbortedTxn => a !== null);
}

/** The largest lastOffset in the index, -1 when empty. */
export async function readLastAborted(redis: Redis | Cluster, key: string): Promise<number> {
  const top = await guard(redis.zrevrange(key, 0, 0, 'WITHSCORES'));
  return top.length >= 2 ? Number(top[1]) : -1;
}
