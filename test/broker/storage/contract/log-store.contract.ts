// The LogStore contract: topics, fenced appends, reads by offset, log start
// and trimming (DeleteRecords, retention), the transaction indexes, producer
// states and compaction, as broker/src/storage/log-store.ts documents them and
// as the handlers rely on them. Every expected value is computed here from
// what the test wrote.
import { describe, expect, it } from 'vitest';
import type { LogStore, StoredBatch, TopicRecord } from '../../../../broker/src/storage/log-store.js';
import { buildBatch } from '../../../helpers/batches.js';
import { perTest, type Factory } from './harness.js';

/** A batch of `n` records tagged `tag` (lastOffsetDelta n-1). */
export const records = (n: number, tag: string, keyed = false): Buffer =>
  buildBatch(Array.from({ length: n }, (_, i) => ({ key: keyed ? Buffer.from(`k${i}`) : null, value: Buffer.from(`${tag}-${i}`) })));

/** lastOffsetDelta of a stored batch (int32 at byte 23 of the v2 header). */
const lastDelta = (b: Buffer): number => b.readInt32BE(23);

export const topicRecord = (name: string, partitions = 1, configs: Record<string, string> = {}): TopicRecord =>
  ({ name, id: `id-${name}`, partitions, configs, created: 1_700_000_000_000 });

/** Appends batches of the given record counts from offset 0 in `epoch`; returns what was written, by base offset. */
export async function fill(store: LogStore, tp: { topic: string; partition: number }, epoch: number, sizes: number[]): Promise<StoredBatch[]> {
  const written: StoredBatch[] = [];
  let base = (await store.tail(tp)).nextOffset ?? 0;
  for (const n of sizes) {
    const bytes = records(n, `b${base}`);
    expect(await store.append(tp, { epoch, baseOffset: base, nextOffset: base + n, batch: bytes, producer: null })).toBe('ok');
    written.push({ baseOffset: base, bytes });
    base += n;
  }
  return written;
}

const bases = (bs: StoredBatch[]): number[] => bs.map((b) => b.baseOffset);

/**
 * A store with readForFetch (the Redis store's streaming read path) returns
 * what read returns, each batch as pieces that join to its bytes, with its
 * lastOffsetDelta and size. Stores without it are read with read().
 */
async function fetchReadsMatch(s: LogStore, tp: { topic: string; partition: number }, offset: number, count: number): Promise<void> {
  if (!s.readForFetch) return;
  const want = await s.read(tp, offset, count);
  const got = await s.readForFetch(tp, offset, count);
  expect(got.map((b) => ({ baseOffset: b.baseOffset, bytes: Buffer.concat(b.pieces) }))).toEqual(want);
  expect(got.map((b) => [b.lastOffsetDelta, b.size])).toEqual(want.map((b) => [lastDelta(b.bytes), b.bytes.length]));
}

export function logStoreContract(open: Factory<LogStore>): void {
  const store = perTest(open);

  describe('topics', () => {
    it('create returns the record once, get/list return it, update replaces configs and partitions, delete forgets it', async () => {
      const s = store();
      const a = topicRecord('alpha', 2, { 'cleanup.policy': 'compact' });
      const created = await s.createTopic(a);
      expect(created && { ...created, placement: undefined }).toEqual({ ...a, placement: undefined });
      expect(await s.createTopic({ ...a, id: 'other-id', partitions: 5 })).toBeNull();
      expect(await s.getTopic('alpha')).toMatchObject(a);
      expect(await s.getTopic('missing')).toBeNull();
      await s.createTopic(topicRecord('beta'));
      expect((await s.listTopics()).map((t) => t.name).sort()).toEqual(['alpha', 'beta']);

      const updated = { ...a, partitions: 3, configs: { 'retention.ms': '1000' } };
      await s.updateTopic(updated);
      expect(await s.getTopic('alpha')).toMatchObject({ name: 'alpha', partitions: 3, configs: { 'retention.ms': '1000' } });

      await s.deleteTopic(updated);
      expect(await s.getTopic('alpha')).toBeNull();
      expect((await s.listTopics()).map((t) => t.name)).toEqual(['beta']);
    });

    it('deleting a topic removes its partitions: a topic created again with the name starts empty', async () => {
      const s = store();
      const t = topicRecord('gone', 2);
      await s.createTopic(t);
      await fill(s, { topic: 'gone', partition: 1 }, 0, [4]);
      await s.setLogStartOffset({ topic: 'gone', partition: 1 }, 2);
      await s.deleteTopic(t);
      await s.createTopic(t);
      const tail = await s.tail({ topic: 'gone', partition: 1 });
      expect(tail).toEqual({ last: null, nextOffset: null, logStartOffset: 0, leaderEpoch: 0, archivedOffset: -1, cleanedTo: 0, remoteLogStartOffset: null });
      expect(await s.read({ topic: 'gone', partition: 1 }, 0, 10)).toEqual([]);
    });
  });

  describe('fenced append', () => {
    it('an empty partition ends at 0; each append moves the stored log end to its nextOffset and becomes the tail', async () => {
      const s = store();
      const tp = { topic: 't', partition: 0 };
      await s.createTopic(topicRecord('t'));
      expect(await s.tail(tp)).toEqual({ last: null, nextOffset: null, logStartOffset: 0, leaderEpoch: 0, archivedOffset: -1, cleanedTo: 0, remoteLogStartOffset: null });
      const written = await fill(s, tp, 0, [3, 1, 5]);
      const tail = await s.tail(tp);
      expect(tail.nextOffset).toBe(3 + 1 + 5);
      expect(tail.last).toEqual(written[2]);
    });

    it('refuses a batch that does not start at the log end or is not of the current leader epoch, and stores nothing', async () => {
      const s = store();
      const tp = { topic: 't', partition: 0 };
      await s.createTopic(topicRecord('t'));
      // A refusal on a partition that has no stream yet leaves it empty.
      expect(await s.append(tp, { epoch: 0, baseOffset: 5, nextOffset: 6, batch: records(1, 'gap'), producer: null })).toEqual({ fenced: 'FENCED offset 0' });
      expect(await s.read(tp, 0, 10)).toEqual([]);
      const written = await fill(s, tp, 0, [2]);
      // A gap and an overlap are both refused.
      expect(await s.append(tp, { epoch: 0, baseOffset: 3, nextOffset: 4, batch: records(1, 'gap'), producer: null })).toEqual({ fenced: 'FENCED offset 2' });
      expect(await s.append(tp, { epoch: 0, baseOffset: 1, nextOffset: 2, batch: records(1, 'overlap'), producer: null })).toEqual({ fenced: 'FENCED offset 2' });
      // A new leader epoch fences the old leader's writes.
      expect(await s.restoreLeaderEpoch(tp, 4)).toBe(4);
      expect(await s.append(tp, { epoch: 0, baseOffset: 2, nextOffset: 3, batch: records(1, 'stale'), producer: null })).toEqual({ fenced: 'FENCED epoch 4' });
      expect(await s.read(tp, 0, 10)).toEqual(written);
      expect((await s.tail(tp)).nextOffset).toBe(2);
      // After refusals the rightful writer appends at the log end.
      const next = records(3, 'ok');
      expect(await s.append(tp, { epoch: 4, baseOffset: 2, nextOffset: 5, batch: next, producer: null })).toBe('ok');
      expect(await s.read(tp, 0, 10)).toEqual([...written, { baseOffset: 2, bytes: next }]);
      expect((await s.tail(tp)).leaderEpoch).toBe(4);
    });

    it('a log end without stored batches is the log start; restoreLeaderEpoch never lowers the epoch', async () => {
      const s = store();
      const tp = { topic: 't', partition: 0 };
      await s.createTopic(topicRecord('t'));
      await s.setLogStartOffset(tp, 7);
      expect(await s.append(tp, { epoch: 0, baseOffset: 0, nextOffset: 1, batch: records(1, 'x'), producer: null })).toEqual({ fenced: 'FENCED offset 7' });
      expect(await s.append(tp, { epoch: 0, baseOffset: 7, nextOffset: 9, batch: records(2, 'x'), producer: null })).toBe('ok');
      expect(await s.restoreLeaderEpoch(tp, 3)).toBe(3);
      expect(await s.restoreLeaderEpoch(tp, 2)).toBe(3);
      expect((await s.tail(tp)).leaderEpoch).toBe(3);
    });

    it('stores the producer state with the batch; expireProducers forgets silent producers only for the current epoch', async () => {
      const s = store();
      const tp = { topic: 't', partition: 0 };
      await s.createTopic(topicRecord('t'));
      const a = await s.nextProducerId();
      const b = await s.nextProducerId();
      expect(b).not.toBe(a);
      // States are opaque to the store except their first token, the last append time in ms.
      expect(await s.append(tp, { epoch: 0, baseOffset: 0, nextOffset: 1, batch: records(1, 'a'), producer: { id: a, state: '1000 a-state' } })).toBe('ok');
      expect(await s.append(tp, { epoch: 0, baseOffset: 1, nextOffset: 2, batch: records(1, 'b'), producer: { id: b, state: '5000 b-state' } })).toBe('ok');
      expect(await s.producerStates(tp)).toEqual(new Map([[a, '1000 a-state'], [b, '5000 b-state']]));
      await s.restoreLeaderEpoch(tp, 1);
      expect(await s.expireProducers(tp, 0, 10_000, [a, b])).toBe(0); // a stale leader expires nothing
      expect(await s.expireProducers(tp, 1, 2_000, [a, b])).toBe(1);
      expect(await s.producerStates(tp)).toEqual(new Map([[b, '5000 b-state']]));
    });
  });

  describe('reads by offset', () => {
    it('read starts with the batch containing the offset and returns following batches in order, without gaps, at most `count`', async () => {
      const s = store();
      const tp = { topic: 't', partition: 0 };
      await s.createTopic(topicRecord('t'));
      const written = await fill(s, tp, 0, [3, 2, 4, 1]); // bases 0, 3, 5, 9; end 10
      expect(await s.read(tp, 0, 100)).toEqual(written);
      expect(await s.read(tp, 4, 2)).toEqual(written.slice(1, 3)); // 4 is inside the batch at 3
      expect(await s.read(tp, 5, 1)).toEqual([written[2]]);
      const all = await s.read(tp, 0, 100);
      for (let i = 1; i < all.length; i++) expect(all[i]!.baseOffset).toBe(all[i - 1]!.baseOffset + lastDelta(all[i - 1]!.bytes) + 1);
      expect(await s.readBackwards(tp, 6, 2)).toEqual([written[2], written[1]]);
      expect(await s.readBackwards(tp, 100, 10)).toEqual([...written].reverse());
      for (const [offset, count] of [[0, 100], [4, 2], [5, 1], [10, 5]] as const) await fetchReadsMatch(s, tp, offset, count);
    });
  });

  describe('log start and trimming (DeleteRecords, retention)', () => {
    it('setLogStartOffset moves the log start; trimBefore removes whole batches below a base offset', async () => {
      const s = store();
      const tp = { topic: 't', partition: 0 };
      await s.createTopic(topicRecord('t'));
      const written = await fill(s, tp, 0, [2, 2, 2, 2]); // bases 0, 2, 4, 6
      await s.setLogStartOffset(tp, 5);
      expect((await s.tail(tp)).logStartOffset).toBe(5);
      expect(await s.trimBefore(tp, 4)).toBe(2);
      expect(bases(await s.read(tp, 0, 10))).toEqual([4, 6]);
      expect(await s.read(tp, 5, 10)).toEqual(written.slice(2));
      // The log end is unchanged and appends continue there.
      expect((await s.tail(tp)).nextOffset).toBe(8);
      expect(await s.trimBefore(tp, 4)).toBe(0);
    });

    it('setRemoteLogStartOffset keeps the tiered log start beside the local one, and null removes it', async () => {
      const s = store();
      const tp = { topic: 't', partition: 0 };
      await s.createTopic(topicRecord('t'));
      await fill(s, tp, 0, [2, 2]);
      expect((await s.tail(tp)).remoteLogStartOffset).toBeNull();
      await s.setRemoteLogStartOffset(tp, 1);
      await s.setLogStartOffset(tp, 2);
      const t = await s.tail(tp);
      expect([t.remoteLogStartOffset, t.logStartOffset]).toEqual([1, 2]);
      await s.setRemoteLogStartOffset(tp, null);
      expect((await s.tail(tp)).remoteLogStartOffset).toBeNull();
      expect((await s.tail(tp)).logStartOffset).toBe(2);
    });
  });

  describe('transaction indexes', () => {
    it('an abort marker enters [first, marker] in the aborted index; a commit does not; the log start drops ranges ending below it', async () => {
      const s = store();
      const tp = { topic: 't', partition: 0 };
      await s.createTopic(topicRecord('t'));
      const p1 = 11;
      const p2 = 12;
      const ap = (base: number, id: number, txn: Parameters<LogStore['append']>[1]['txn']) =>
        s.append(tp, { epoch: 0, baseOffset: base, nextOffset: base + 1, batch: records(1, `x${base}`), producer: { id, state: `${base}` }, txn });
      expect(await ap(0, p1, { kind: 'begin', firstOffset: 0 })).toBe('ok');
      expect(await ap(1, p2, { kind: 'begin', firstOffset: 1 })).toBe('ok');
      expect(await ap(2, p1, { kind: 'end', aborted: { producerId: p1, firstOffset: 0, lastOffset: 2 } })).toBe('ok');
      expect(await ap(3, p2, { kind: 'end', aborted: null })).toBe('ok');
      expect(await ap(4, p2, { kind: 'begin', firstOffset: 4 })).toBe('ok');
      expect(await ap(5, p2, { kind: 'end', aborted: { producerId: p2, firstOffset: 4, lastOffset: 5 } })).toBe('ok');
      const both = [{ producerId: p1, firstOffset: 0, lastOffset: 2 }, { producerId: p2, firstOffset: 4, lastOffset: 5 }];
      expect(await s.abortedTxns(tp, 0, 10)).toEqual(both);
      expect(await s.abortedTxns(tp, 0, 1)).toEqual(both.slice(0, 1));
      expect(await s.abortedTxns(tp, 3, 10)).toEqual(both.slice(1));
      expect(await s.lastAbortedOffset(tp)).toBe(5);
      await s.setLogStartOffset(tp, 3);
      expect(await s.abortedTxns(tp, 0, 10)).toEqual(both.slice(1));
      expect(await s.lastAbortedOffset({ topic: 't', partition: 1 })).toBe(-1);
    });
  });

  describe('compaction', () => {
    /** Runs one pass that keeps `keep` (batches of the log) as the compacted prefix up to `cleanedTo`. */
    async function pass(s: LogStore, tp: { topic: string; partition: number }, epoch: number, keep: StoredBatch[], cleanedTo: number, token: string) {
      expect(await s.compaction.begin(tp, epoch, token)).toBe(true);
      expect(await s.compaction.write(tp, token, keep.map((b) => ({ ...b, horizon: null })))).toBe(true);
      expect(await s.compaction.finish(tp, epoch, token, cleanedTo)).toBe(true);
    }

    it('a pass is fenced by leader epoch and by a newer pass; the swap moves the clean point', async () => {
      const s = store();
      const tp = { topic: 'c', partition: 0 };
      await s.createTopic(topicRecord('c', 1, { 'cleanup.policy': 'compact' }));
      await s.restoreLeaderEpoch(tp, 2);
      const w = await fill(s, tp, 2, [2, 2, 2]); // bases 0, 2, 4
      expect(await s.compaction.begin(tp, 1, 'old-epoch')).toBe(false);
      expect(await s.compaction.begin(tp, 2, 'first')).toBe(true);
      expect(await s.compaction.begin(tp, 2, 'second')).toBe(true);
      expect(await s.compaction.write(tp, 'first', [{ ...w[0]!, horizon: null }])).toBe(false);
      expect(await s.compaction.finish(tp, 2, 'first', 4)).toBe(false);
      expect(await s.compaction.write(tp, 'second', [{ ...w[1]!, horizon: 77 }])).toBe(true);
      expect(await s.compaction.finish(tp, 1, 'second', 4)).toBe(false);
      expect(await s.compaction.finish(tp, 2, 'second', 4)).toBe(true);
      expect((await s.tail(tp)).cleanedTo).toBe(4);
      expect(await s.compaction.scanCompacted(tp, 0, 10)).toEqual([{ ...w[1]!, horizon: 77 }]);
      expect(await s.compaction.scanLog(tp, 0, 10)).toEqual([w[2]]);
      // The tail is still the log's newest batch and appends continue at the log end.
      expect((await s.tail(tp)).last).toEqual(w[2]);
      expect(await s.append(tp, { epoch: 2, baseOffset: 6, nextOffset: 7, batch: records(1, 'after'), producer: null })).toBe('ok');
    });

    it('reads below the clean point come from the compacted prefix and never mix it with the log', async () => {
      const s = store();
      const tp = { topic: 'c', partition: 0 };
      await s.createTopic(topicRecord('c', 1, { 'cleanup.policy': 'compact' }));
      const w = await fill(s, tp, 0, [2, 2, 2, 2]); // bases 0, 2, 4, 6
      await pass(s, tp, 0, [w[0]!, w[2]!], 6, 'p'); // the batch at 2 was compacted away
      // From the prefix: the batch containing the offset and later prefix batches only.
      expect(await s.read(tp, 0, 10)).toEqual([w[0], w[2]]);
      expect(await s.read(tp, 4, 10)).toEqual([w[2]]);
      // From the log: offsets at or above the clean point.
      expect(await s.read(tp, 6, 10)).toEqual([w[3]]);
      expect(await s.readBackwards(tp, 100, 10)).toEqual([w[3], w[2], w[0]]);
      for (const offset of [0, 3, 4, 6]) await fetchReadsMatch(s, tp, offset, 10);
    });

    it('trimBefore removes batches of the compacted prefix too', async () => {
      const s = store();
      const tp = { topic: 'c', partition: 0 };
      await s.createTopic(topicRecord('c', 1, { 'cleanup.policy': 'compact' }));
      const w = await fill(s, tp, 0, [2, 2, 2, 2]);
      await pass(s, tp, 0, [w[0]!, w[1]!, w[2]!], 6, 'p');
      await s.setLogStartOffset(tp, 4);
      expect(await s.trimBefore(tp, 4)).toBe(2);
      expect(await s.compaction.scanCompacted(tp, 0, 10)).toEqual([{ ...w[2]!, horizon: null }]);
      expect(await s.read(tp, 4, 10)).toEqual([w[2]]);
    });

    it('a swap after the log start moved drops prefix batches before the one containing the log start', async () => {
      const s = store();
      const tp = { topic: 'c', partition: 0 };
      await s.createTopic(topicRecord('c', 1, { 'cleanup.policy': 'compact' }));
      const w = await fill(s, tp, 0, [2, 2, 2, 2]);
      expect(await s.compaction.begin(tp, 0, 'p')).toBe(true);
      expect(await s.compaction.write(tp, 'p', w.slice(0, 3).map((b) => ({ ...b, horizon: null })))).toBe(true);
      await s.setLogStartOffset(tp, 3); // DeleteRecords while the pass runs: offset 3 is in the batch at 2
      expect(await s.compaction.finish(tp, 0, 'p', 6)).toBe(true);
      expect(bases(await s.compaction.scanCompacted(tp, 0, 10))).toEqual([2, 4]);
    });
  });

  describe('cluster identity', () => {
    it('producer ids are distinct and increasing; the cluster id is stable', async () => {
      const s = store();
      const ids = [await s.nextProducerId(), await s.nextProducerId(), await s.nextProducerId()];
      expect(ids[1]).toBe(ids[0]! + 1);
      expect(ids[2]).toBe(ids[1]! + 1);
      const id = await s.clusterId();
      expect(id.length).toBeGreaterThan(0);
      expect(await s.clusterId()).toBe(id);
    });

    it('sizeBytes is 0 for an empty partition and at least the stored batches once written', async () => {
      const s = store();
      const tp = { topic: 't', partition: 0 };
      await s.createTopic(topicRecord('t'));
      expect(await s.sizeBytes(tp)).toBe(0);
      const w = await fill(s, tp, 0, [5, 5]);
      expect(await s.sizeBytes(tp)).toBeGreaterThanOrEqual(w.reduce((n, b) => n + b.bytes.length, 0));
    });
  });
}
