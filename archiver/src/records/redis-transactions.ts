// The transaction hooks backed by the broker's transaction indexes in Redis
// (docs/redis-keys.md): `:txns` (producer id -> first offset of its open
// transaction) and `:aborted` (aborted ranges `<pid>:<first>:<last>`, score
// last). Both are written by the broker's fenced append in the same Redis
// transaction as the batch or marker they describe.
//
// The bound is taken in one MULTI with the log end (`next`), so it is a
// snapshot: a transaction that opens after it lies at or past that `next`
// and is not read this round. A partition written by no broker (no `next`)
// has no transactions: no bound. A batch below the LSO belongs to a decided
// transaction, so its abort (if any) is already in `:aborted`.
import type { RedisClient } from '../../../common/redis/connect.js';
import type { Keys } from '../keys.js';
import { META_FIELD } from '../../../common/keys.js';
import type { BatchInfo, TransactionHooks } from './transactions.js';

/** Aborted ranges read per round trip while looking for a batch's range. */
const PAGE = 500;

export function redisTransactionHooks(redis: () => RedisClient, keys: Keys): TransactionHooks {
  return {
    async lastStableOffset(topic: string, partition: number): Promise<number | null> {
      const out = await redis().multi().hvals(keys.txns(topic, partition)).hget(keys.meta(topic, partition), META_FIELD.next).exec();
      if (!out) throw new Error('transaction aborted');
      const [[e1, open], [e2, next]] = out as [[Error | null, string[]], [Error | null, string | null]];
      if (e1 || e2) throw e1 ?? e2;
      if (next === null) return null;
      let lso = Number(next);
      for (const v of open) lso = Math.min(lso, Number(v));
      return lso;
    },

    async isAbortedBatch(b: BatchInfo): Promise<boolean> {
      if (!b.isTransactional) return false;
      const pid = String(b.producerId);
      for (let at = 0; ; at += PAGE) {
        const members = await redis().zrangebyscore(keys.aborted(b.topic, b.partition), String(b.baseOffset), '+inf', 'LIMIT', at, PAGE);
        for (const m of members) {
          const [p, first, last] = m.split(':');
          if (p === pid && Number(first) <= b.baseOffset && b.baseOffset <= Number(last)) return true;
        }
        if (members.length < PAGE) return false;
      }
    },
  };
}
