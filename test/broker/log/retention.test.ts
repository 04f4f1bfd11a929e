// The retention pass over an in-memory store: local retention of tiered topics
// (what Redis keeps of archived records), the total retention moving the Kafka
// log start through the lake's segments, and switching tiering off.
import { describe, expect, it } from 'vitest';
import { RetentionTask } from '../../../broker/src/log/retention.js';
import type { RemoteLog, RemoteSegment } from '../../../broker/src/storage/remote-log.js';
import { createLogger } from '../../../common/logger/logger.js';
import { MemoryLogStore } from '../support/memory-log-store.js';
import { unitServices } from '../support/services.js';
import { buildBatch } from '../../helpers/batches.js';

const NOW = 1_000_000_000;
const tp = { topic: 't', partition: 0 };

/** Segments only: the retention pass asks nothing else of the remote tier. */
function remoteWith(segments: RemoteSegment[]): RemoteLog {
  const no = async (): Promise<never> => { throw new Error('not used by retention'); };
  return { read: no, extent: no, offsetForTimestamp: no, segments: async () => segments, close: async () => {} };
}

/** Ten one-record batches (offsets 0..9), record i stamped NOW - (10 - i) s. */
async function setup(configs: Record<string, string>, segments: RemoteSegment[] = []) {
  const store = new MemoryLogStore();
  const b = unitServices({ store });
  await b.log.createTopic('t', 1, configs);
  const p = await b.log.partition('t', 0);
  for (let i = 0; i < 10; i++) {
    const r = await p.append(buildBatch([{ key: null, value: Buffer.alloc(100, i), timestamp: NOW - (10 - i) * 1000 }]), { logAppendTime: false });
    expect(r.errorCode).toBe(0);
  }
  const task = new RetentionTask(b.log, createLogger('error', 'test'), 1000, remoteWith(segments));
  return { store, b, p, task };
}

describe('retention of tiered topics', () => {
  it('local.retention.ms trims Redis only below the archiver watermark and keeps the Kafka log start', async () => {
    const { store, p, task } = await setup({ 'remote.storage.enable': 'true', 'local.retention.ms': '1000', 'retention.ms': '-1' });
    await task.runOnce(NOW);
    expect(p.logStartOffset).toBe(0); // nothing archived yet: nothing trimmed
    store.setArchived(tp, 5);
    await task.runOnce(NOW);
    expect([p.earliestOffset, p.logStartOffset]).toEqual([0, 6]);
    expect((await store.tail(tp)).remoteLogStartOffset).toBe(0);
    expect((await store.read(tp, 0, 100))[0]!.baseOffset).toBe(6);
    store.setArchived(tp, 9);
    await task.runOnce(NOW);
    expect([p.earliestOffset, p.logStartOffset]).toEqual([0, 9]); // the newest batch always stays
  });

  it('-2 takes retention.ms: a record within it stays in Redis though archived', async () => {
    const lake = [{ minOffset: 0, maxOffset: 5, maxTimestampMs: NOW - 5000, records: 6, bytes: 600 }, { minOffset: 6, maxOffset: 8, maxTimestampMs: NOW - 2000, records: 3, bytes: 300 }];
    const { store, p, task } = await setup({ 'remote.storage.enable': 'true', 'retention.ms': '4500' }, lake);
    store.setArchived(tp, 9);
    await task.runOnce(NOW);
    expect(p.logStartOffset).toBe(6); // records 0..5 are older than 4.5 s
    expect(p.remoteLogStartOffset).toBeNull(); // total retention passed them too: they are gone for Kafka (lake rows stay)
  });

  it('retention.ms, the total, moves the Kafka log start through the lake one segment at a time', async () => {
    const segments = [
      { minOffset: 0, maxOffset: 2, maxTimestampMs: NOW - 8000, records: 3, bytes: 300 },
      { minOffset: 3, maxOffset: 5, maxTimestampMs: NOW - 5000, records: 3, bytes: 300 },
      { minOffset: 6, maxOffset: 8, maxTimestampMs: NOW - 2000, records: 3, bytes: 300 },
    ];
    const { store, p, task } = await setup({ 'remote.storage.enable': 'true', 'local.retention.ms': '1000', 'retention.ms': '6000' }, segments);
    store.setArchived(tp, 8);
    await task.runOnce(NOW);
    expect([p.earliestOffset, p.logStartOffset]).toEqual([3, 9]); // segment 0..2 is past 6 s; 3..5 (max 5 s) is not
    expect((await store.tail(tp)).remoteLogStartOffset).toBe(3);
  });

  it('retention.bytes counts both tiers', async () => {
    const segments = [
      { minOffset: 0, maxOffset: 4, maxTimestampMs: NOW - 6000, records: 5, bytes: 5000 },
      { minOffset: 5, maxOffset: 8, maxTimestampMs: NOW - 2000, records: 4, bytes: 4000 },
    ];
    const { store, p, task } = await setup({ 'remote.storage.enable': 'true', 'local.retention.bytes': '1', 'retention.bytes': '6000' }, segments);
    store.setArchived(tp, 8);
    await task.runOnce(NOW);
    expect(p.logStartOffset).toBe(9);
    expect(p.earliestOffset).toBe(5); // 4000 in the second segment + Redis's last batch fit in 6000; with the first they do not
  });

  it('remote.log.copy.disable=true: Redis keeps retention.*; remote.storage.enable=false drops the remote tier', async () => {
    const { store, b, p, task } = await setup({ 'remote.storage.enable': 'true', 'local.retention.ms': '1000', 'retention.ms': '-1' });
    store.setArchived(tp, 5);
    await task.runOnce(NOW);
    expect([p.earliestOffset, p.logStartOffset]).toEqual([0, 6]);
    const t = (await b.log.topic('t'))!;
    await b.log.updateTopic({ ...t, configs: { ...t.configs, 'remote.log.copy.disable': 'true' } });
    store.setArchived(tp, 9);
    await task.runOnce(NOW);
    expect([p.earliestOffset, p.logStartOffset]).toEqual([0, 6]); // retention.ms=-1 keeps the rest in Redis
    await b.log.updateTopic({ ...t, configs: { 'remote.storage.enable': 'false', 'remote.log.delete.on.disable': 'true' } });
    await task.runOnce(NOW);
    expect([p.earliestOffset, p.logStartOffset]).toEqual([6, 6]);
    expect((await store.tail(tp)).remoteLogStartOffset).toBeNull();
  });
});
