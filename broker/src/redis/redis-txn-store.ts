// Transaction coordinator state in Redis (docs/redis-keys.md, "Transaction
// coordinator keys"): one hash per transactional id, `<prefix>:x:{<id>}`,
// loaded and written only by lua/txn-load.lua and lua/txn-write.lua, which
// fence by coordinator epoch; and one index set per coordinator slot,
// `<prefix>:c:{<slot>}:txns`, written after the id's hash (each command
// touches one hash slot, so this works on Redis Cluster).
import type { RedisClient as Redis } from '../../../common/redis/connect.js';
import { Keys } from './keys.js';
import { luaSource } from './lua.js';
import { isTxnState, type TxnMetadata, type TxnState } from '../transactions/txn-metadata.js';
import { TxnCoordinatorFencedError, type TxnStore } from '../transactions/txn-store.js';
import { guard } from './stream-entries.js';

type ScriptReply = [number, ...unknown[]];
type TxnRedis = Redis & {
  txnLoad(key: string, epoch: string): Promise<ScriptReply>;
  txnWrite(key: string, epoch: string, ...fieldValues: string[]): Promise<ScriptReply>;
};

export class RedisTxnStore implements TxnStore {
  readonly keys: Keys;
  private readonly redis: TxnRedis;

  constructor(redis: Redis, prefix: string, private readonly producerIds: () => Promise<number>) {
    this.keys = new Keys(prefix);
    redis.defineCommand('txnLoad', { numberOfKeys: 1, lua: luaSource('txn-load') });
    redis.defineCommand('txnWrite', { numberOfKeys: 1, lua: luaSource('txn-write') });
    this.redis = redis as TxnRedis;
  }

  async load(id: string, epoch: number): Promise<TxnMetadata | null> {
    const r = await guard(this.redis.txnLoad(this.keys.transaction(id), String(epoch)));
    if (r[0] !== 1) throw new TxnCoordinatorFencedError(id, epoch, Number(r[1]));
    const flat = r[1] as string[];
    const h: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) h[flat[i]!] = flat[i + 1]!;
    if (h.producerId === undefined) return null;
    const state: TxnState = isTxnState(h.state) ? h.state : 'Empty';
    return {
      transactionalId: id,
      producerId: Number(h.producerId),
      producerEpoch: Number(h.producerEpoch),
      lastProducerId: Number(h.lastProducerId ?? -1),
      lastProducerEpoch: Number(h.lastProducerEpoch ?? -1),
      timeoutMs: Number(h.timeoutMs),
      state,
      partitions: JSON.parse(h.partitions ?? '[]') as string[],
      groups: JSON.parse(h.groups ?? '[]') as string[],
      txnStartMs: Number(h.txnStartMs ?? -1),
      lastUpdateMs: Number(h.lastUpdateMs ?? 0),
      // Absent in hashes written before transactions v2: a v1 transaction with no producer id rotation.
      txnVersion: Number(h.txnVersion ?? 0),
      nextProducerId: Number(h.nextProducerId ?? -1),
    };
  }

  async save(m: TxnMetadata, slot: number, epoch: number): Promise<void> {
    const r = await guard(this.redis.txnWrite(this.keys.transaction(m.transactionalId), String(epoch),
      'producerId', String(m.producerId), 'producerEpoch', String(m.producerEpoch),
      'lastProducerId', String(m.lastProducerId), 'lastProducerEpoch', String(m.lastProducerEpoch),
      'timeoutMs', String(m.timeoutMs), 'state', m.state,
      'partitions', JSON.stringify(m.partitions), 'groups', JSON.stringify(m.groups),
      'txnStartMs', String(m.txnStartMs), 'lastUpdateMs', String(m.lastUpdateMs),
      'txnVersion', String(m.txnVersion), 'nextProducerId', String(m.nextProducerId)));
    if (r[0] !== 1) throw new TxnCoordinatorFencedError(m.transactionalId, epoch, Number(r[1]));
    await guard(this.redis.sadd(this.keys.slotTransactions(slot), m.transactionalId));
  }

  idsOfSlot(slot: number): Promise<string[]> {
    return guard(this.redis.smembers(this.keys.slotTransactions(slot)));
  }

  nextProducerId(): Promise<number> {
    return this.producerIds();
  }
}
