// DescribeLogDirs: the Redis dir with the led partitions' stream sizes, and,
// where tiered topics' partitions are asked for, the lake as a second dir
// with their remote sizes.
import { describe, expect, it } from 'vitest';
import { describeLogDirsHandler } from '../../../broker/src/handlers/describe-log-dirs.js';
import type { RemoteLog } from '../../../broker/src/storage/remote-log.js';
import type { RequestContext } from '../../../broker/src/handlers/support/types.js';
import { newSession } from '../../../broker/src/security/session.js';
import { unitServices } from '../support/services.js';
import { buildBatch } from '../../helpers/batches.js';

const ctx: RequestContext = { apiKey: 35, apiVersion: 4, correlationId: 1, clientId: 't', session: newSession(1, '127.0.0.1') };

describe('DescribeLogDirs', () => {
  it('adds the lake dir with the remote sizes of tiered partitions, and only then', async () => {
    const b = unitServices();
    b.remoteLog = {
      read: async () => [], offsetForTimestamp: async () => null, segments: async () => [], close: async () => {},
      extent: async (tp) => ({ startOffset: 0, endOffset: 10, records: 10, bytes: 1000 + tp.partition }),
    } satisfies RemoteLog;
    b.config.lake = 's3://bucket/lake';
    await b.log.createTopic('plain', 1, {});
    await b.log.createTopic('tiered', 2, { 'remote.storage.enable': 'true' });
    for (const [t, n] of [['plain', 1], ['tiered', 2]] as const) {
      for (let i = 0; i < n; i++) await (await b.log.partition(t, i)).append(buildBatch([{ key: null, value: Buffer.alloc(100) }]), { logAppendTime: false });
    }
    const ask = async (topics: Array<{ topic: string; partitions: number[] }> | null) => (await describeLogDirsHandler.handle({ topics }, ctx, b))!.results;
    const onlyPlain = await ask([{ topic: 'plain', partitions: [0] }]);
    expect(onlyPlain.map((d) => d.logDir)).toEqual(['redis:rn']);
    const all = await ask(null);
    expect(all.map((d) => d.logDir)).toEqual(['redis:rn', 'lake:s3://bucket/lake']);
    expect(all[0]!.topics.map((t) => t.name).sort()).toEqual(['plain', 'tiered']);
    expect(all[1]!.topics).toEqual([{ name: 'tiered', partitions: [0, 1].map((p) => ({ partitionIndex: p, partitionSize: 1000 + p, offsetLag: 0, isFutureKey: false })) }]);
  });
});
