// The append transaction against a real redis-server/valkey-server: the fence
// script lets the XADD through only for the current epoch at the stored log
// end, and a refusal leaves no trace (no entry, no stream created, no change
// of `next`), however refusals and accepted appends interleave. It fails
// closed: a script that did not run (NOSCRIPT after SCRIPT FLUSH) or failed
// (a runtime error) stores nothing, although a Redis transaction runs the
// XADD after a failed EVALSHA; after NOSCRIPT the store loads the script
// again and the append is stored exactly once.
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisLogStore } from '../../../broker/src/redis/redis-log-store.js';
import { clusterFromEnv, startRedis, type RedisServer } from '../../helpers/redis.js';
import { topicRecord } from '../../broker/storage/contract/log-store.contract.js';
import { buildBatch } from '../../helpers/batches.js';

let redis: RedisServer;
let store: RedisLogStore;
/** The ioredis fallback path (unix socket: no zero-copy append connection), on the same server; not on a cluster. */
let socketStore: RedisLogStore | null = null;
const cluster = clusterFromEnv();
beforeAll(async () => {
  const socket = path.join(os.tmpdir(), `rn-fence-${process.pid}.sock`);
  redis = await startRedis(cluster ? {} : { args: ['--unixsocket', socket, '--unixsocketperm', '700'] });
  store = new RedisLogStore(redis.url, 'fx');
  await store.connect();
  if (!cluster) {
    socketStore = new RedisLogStore(socket, 'fx');
    await socketStore.connect();
  }
});
afterAll(async () => {
  await store?.close();
  await socketStore?.close();
  await redis?.stop();
});

/** The stream's last-generated id (XINFO STREAM). */
const lastId = async (key: string): Promise<string> => {
  const info = (await store.redis.call('XINFO', 'STREAM', key)) as unknown[];
  return String(info[info.indexOf('last-generated-id') + 1]);
};
const CLOSED = '18446744073709551615-18446744073709551615';
/** SCRIPT FLUSH on every primary. */
const flushScripts = async (): Promise<void> => {
  const c = store.redis;
  if ('nodes' in c && typeof c.nodes === 'function') await Promise.all(c.nodes('master').map((n) => n.call('SCRIPT', 'FLUSH')));
  else await c.call('SCRIPT', 'FLUSH');
};
/** Partition 0 of a topic whose record is stored (a cluster store needs its placement). */
const topic = async (name: string, partitions = 1) => {
  await store.createTopic(topicRecord(name, partitions));
  await socketStore?.getTopic(name);
  return { topic: name, partition: 0 };
};
const ids = async (key: string): Promise<string[]> => (await store.redis.xrange(key, '-', '+')).map(([id]) => id);

/** A batch of `n` records (lastOffsetDelta n-1). */
const batch = (n: number) => buildBatch(Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`r${i}`) })));
const req = (epoch: number, base: number, n: number, producer: { id: number; state: string } | null = null) => ({ epoch, baseOffset: base, nextOffset: base + n, batch: batch(n), producer });

describe('append fence (real Redis)', () => {
  it('accepts only the current epoch at the log end; refusals leave no trace', async () => {
    const tp = await topic('f');
    const meta = store.keyNames.meta(tp);
    const log = store.keyNames.log(tp);
    // A stale writer on a partition that does not exist yet stores nothing.
    await store.redis.hset(meta, 'leaderEpoch', '2');
    expect(await store.append(tp, req(1, 0, 5))).toEqual({ fenced: 'FENCED epoch 2' });
    expect(await store.redis.xlen(log)).toBe(0);
    // The leader of epoch 2 writes from 0; its idempotence state is stored with the batch.
    expect(await store.append(tp, req(2, 0, 10, { id: 9, state: '1 0 0:9:0' }))).toBe('ok');
    expect(await store.redis.hget(store.keyNames.producers(tp), '9')).toBe('1 0 0:9:0');
    // Overlap (base 5 inside 0..9), gap (base 12), stale epoch at the right base: all refused.
    expect(await store.append(tp, req(2, 5, 5))).toEqual({ fenced: 'FENCED offset 10' });
    expect(await store.append(tp, req(2, 12, 1))).toEqual({ fenced: 'FENCED offset 10' });
    expect(await store.append(tp, req(1, 10, 1))).toEqual({ fenced: 'FENCED epoch 2' });
    expect(await store.redis.hget(meta, 'next')).toBe('10');
    // After refusals raised the stream's last id, the leader continues densely.
    expect(await store.append(tp, req(2, 10, 3))).toBe('ok');
    expect(await store.append(tp, req(2, 13, 1))).toBe('ok');
    expect(await store.append(tp, req(2, 100, 1))).toEqual({ fenced: 'FENCED offset 14' });
    expect(await store.append(tp, req(2, 14, 2))).toBe('ok');
    const ids = (await store.redis.xrange(log, '-', '+')).map(([id]) => id);
    expect(ids).toEqual(['0-1', '10-1', '13-1', '14-1']);
    expect(await store.redis.hget(meta, 'next')).toBe('16');
    const tail = await store.tail(tp);
    expect(tail.nextOffset).toBe(16);
    expect(tail.last?.baseOffset).toBe(14);
  });

  it('derives the log end once from the newest entry when `next` is not stored', async () => {
    const tp = await topic('legacy');
    // A stream written without `next` (as before it existed): one batch of 4 records at base 7.
    await store.redis.xadd(store.keyNames.log(tp), '7-1', 'b', batch(4));
    expect(await store.append(tp, req(0, 10, 1))).toEqual({ fenced: 'FENCED offset 11' });
    expect(await store.append(tp, req(0, 11, 2))).toBe('ok');
    expect(await store.redis.hget(store.keyNames.meta(tp), 'next')).toBe('13');
  });

  it('closes the stream after every append: an XADD without the script is refused', async () => {
    const tp = await topic('closed');
    await topic('closed2');
    const log = store.keyNames.log(tp);
    expect(await store.append(tp, req(0, 0, 3))).toBe('ok');
    // The transaction the broker sends, with a fence that does not run (an unknown SHA):
    // EXEC still runs the XADD, which Redis refuses; the stream is unchanged.
    const out = await store.redis.multi()
      .evalsha('0000000000000000000000000000000000000000', 5, log, store.keyNames.meta(tp), store.keyNames.producers(tp), store.keyNames.txns(tp), store.keyNames.aborted(tp), '0', '3', '4', '', '', '')
      .xadd(log, 'NOMKSTREAM', '3-1', 'b', batch(1))
      .xsetid(log, CLOSED)
      .exec();
    expect(String(out![0]![0])).toMatch(/^ReplyError: NOSCRIPT/);
    expect(await ids(log)).toEqual(['0-1']);
    expect(String(out![1]![0])).toMatch(/exhausted the last possible ID|equal or smaller/);
    expect(await lastId(log)).toBe(CLOSED);
    // So is a gap write (an id far above the log end) and, on a missing stream, the XADD creates nothing.
    await expect(store.redis.xadd(log, 'NOMKSTREAM', '1000-1', 'b', batch(1))).rejects.toThrow(/exhausted the last possible ID|equal or smaller/);
    expect(await store.redis.xadd(store.keyNames.log({ topic: 'closed2', partition: 0 }), 'NOMKSTREAM', '0-1', 'b', batch(1))).toBeNull();
    expect(await store.append(tp, req(0, 3, 1))).toBe('ok');
    expect(await ids(log)).toEqual(['0-1', '3-1']);
  });

  for (const path of cluster ? ['append connection'] as const : ['append connection', 'ioredis (unix socket)'] as const) {
    it(`after SCRIPT FLUSH, reloads the script and stores each batch exactly once (${path})`, async () => {
      const s = path === 'append connection' ? store : socketStore!;
      const tp = await topic(`flush-${path.length}`);
      const log = store.keyNames.log(tp);
      const meta = store.keyNames.meta(tp);
      expect(await s.append(tp, req(0, 0, 2, { id: 7, state: 's0' }))).toBe('ok');
      await flushScripts();
      const afterFlush = await s.append(tp, req(0, 2, 2, { id: 7, state: 's1' })).catch((e: Error) => e);
      expect({ ids: await ids(log), next: await store.redis.hget(meta, 'next') }).toEqual({ ids: ['0-1', '2-1'], next: '4' });
      expect(afterFlush).toBe('ok');
      // 40 pipelined appends with a SCRIPT FLUSH landing among them: every one is stored once, in order.
      const pending: Array<Promise<unknown>> = [];
      for (let i = 0; i < 40; i++) {
        pending.push(s.append(tp, req(0, 4 + i, 1, { id: 7, state: `p${i}` })));
        if (i === 20) pending.push(flushScripts());
      }
      const results = await Promise.all(pending);
      expect(results.filter((r) => r === 'ok')).toHaveLength(40);
      expect(await ids(log)).toEqual(['0-1', '2-1', ...Array.from({ length: 40 }, (_, i) => `${4 + i}-1`)]);
      expect(await store.redis.hget(meta, 'next')).toBe('44');
      expect(await store.redis.hget(store.keyNames.producers(tp), '7')).toBe('p39');
      expect(await lastId(log)).toBe(CLOSED);
    });

    it(`a fence script that fails at run time stores nothing (${path})`, async () => {
      const s = path === 'append connection' ? store : socketStore!;
      const tp = await topic(`lua-error-${path.length}`);
      const log = store.keyNames.log(tp);
      const meta = store.keyNames.meta(tp);
      const producers = store.keyNames.producers(tp);
      expect(await s.append(tp, req(0, 0, 5, { id: 3, state: 'a' }))).toBe('ok');
      // A producer-state key of the wrong type: the script's HSET raises WRONGTYPE.
      await store.redis.del(producers);
      await store.redis.set(producers, 'not a hash');
      const failed = await s.append(tp, req(0, 5, 2, { id: 3, state: 'b' })).catch((e: Error) => e);
      expect(await ids(log)).toEqual(['0-1']);
      expect(await store.redis.hget(meta, 'next')).toBe('5');
      expect(String(failed)).toMatch(/RN2004 .*WRONGTYPE/);
      expect(await lastId(log)).toBe(CLOSED);
      // Repaired, the same append is stored once.
      await store.redis.del(producers);
      expect(await s.append(tp, req(0, 5, 2, { id: 3, state: 'b' }))).toBe('ok');
      expect(await ids(log)).toEqual(['0-1', '5-1']);
    });
  }
});
