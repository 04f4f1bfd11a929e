// Redis memory per record of the Java producer's default batches (15 records
// of 1 KiB, about 15.6 KB each, one stream entry per batch), under Redis's
// stream-node-max-bytes default (4096) and under the 1 MiB that docs/durability.md's
// "Redis settings" recommend and the embedded Redis and the bench use. Under
// the default, every such batch gets a stream node of its own, rounded up by
// the allocator; with 1 MiB they share nodes. The broker's start-up log says
// which it found, with the recommendation when the value is small; the same
// for rdbcompression, which docs/durability.md recommends off (AOF rewrites would
// LZF-compress the whole log again).
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { wireCreateTopic, wireProduce } from '../../helpers/faults.js';
import { WireClient } from '../../helpers/wire.js';
import { buildBatch } from '../../helpers/batches.js';
import { targetKindFromEnv } from '../../helpers/target.js';

const onKafka = targetKindFromEnv() === 'kafka';

const RECORDS_PER_BATCH = 15;
const VALUE_BYTES = 1024;
const BATCHES = 400;

let redis: RedisServer | undefined;
let broker: RunnelBroker | undefined;

afterEach(async () => {
  await broker?.stop();
  await redis?.stop();
  broker = redis = undefined;
});

/** Produces BATCHES batches of 15 x 1 KiB records; returns Redis bytes per record of the partition's stream (MEMORY USAGE) and the broker log. */
async function bytesPerRecord(args: string[]): Promise<{ ratio: number; log: string }> {
  redis = await startRedis({ appendonly: true, appendfsync: 'everysec', args });
  broker = await startRunnel({ redisUrl: redis.url });
  expect(await wireCreateTopic(broker.port, 'nodes', 1)).toBe(0);
  const c = await WireClient.connect(broker.port);
  try {
    for (let b = 0; b < BATCHES; b++) {
      const records = Array.from({ length: RECORDS_PER_BATCH }, (_, i) => ({ key: null, value: Buffer.alloc(VALUE_BYTES, (b * RECORDS_PER_BATCH + i) % 251) }));
      const r = await wireProduce(c, 'nodes', 0, buildBatch(records), 1);
      expect(r.errorCode).toBe(0);
    }
  } finally {
    c.close();
  }
  const reply = await redis.command('MEMORY USAGE rn:p:{nodes/0}:log SAMPLES 0');
  const usage = Number(/^:(\d+)/.exec(reply)?.[1] ?? NaN);
  expect(usage, `MEMORY USAGE answered ${reply}`).toBeGreaterThan(0);
  const payload = BATCHES * RECORDS_PER_BATCH * VALUE_BYTES;
  return { ratio: usage / payload, log: fs.readFileSync(broker.proc().logFile, 'utf8') };
}

describe.skipIf(onKafka)('Redis bytes per record and stream-node-max-bytes', () => {
  it('1 MiB stream nodes: 15-record 1 KiB batches cost at most 1.05x their record values; no recommendation logged', async () => {
    const { ratio, log } = await bytesPerRecord(['--stream-node-max-bytes', '1048576', '--rdbcompression', 'no', '--auto-aof-rewrite-percentage', '400']);
    console.log(`stream-node-max-bytes 1048576: ${ratio.toFixed(3)}x the record values`);
    expect(ratio).toBeLessThanOrEqual(1.05);
    expect(log).toContain('"streamNodeMaxBytes":1048576');
    expect(log).not.toContain('stream-node-max-bytes 1048576 is recommended');
    expect(log).toContain('"rdbCompression":"no"');
    expect(log).not.toContain('rdbcompression no is recommended');
    expect(log).toContain('"aofRewritePercentage":400');
    expect(log).not.toContain('auto-aof-rewrite-percentage 400 is recommended');
  });

  it("the server's defaults (4096-byte nodes, rdbcompression yes, auto-aof-rewrite-percentage 100): a node per batch costs more, and the broker recommends 1 MiB, rdbcompression no and 400", async () => {
    const { ratio, log } = await bytesPerRecord(['--stream-node-max-bytes', '4096']);
    console.log(`stream-node-max-bytes 4096: ${ratio.toFixed(3)}x the record values`);
    expect(ratio).toBeGreaterThan(1.05);
    expect(log).toContain('stream-node-max-bytes 1048576 is recommended');
    expect(log).toContain('"rdbCompression":"yes"');
    expect(log).toContain('rdbcompression no is recommended');
    expect(log).toContain('"aofRewritePercentage":100');
    expect(log).toContain('auto-aof-rewrite-percentage 400 is recommended');
  });
});
