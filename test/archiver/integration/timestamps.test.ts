// A record whose timestamp the lake cannot hold (issue 27, defect 4: CreateTime
// 9e15 ms, year ~287,000) stalls only its own partition with RN4007
// (archiver/src/records/timestamps.ts): the other partition of the topic keeps
// committing, the stall shows in the lag report and on /metrics, it is logged
// once, and removing the entry from the log resumes the partition. Before the
// fix the Parquet job threw on the date of that record, every commit of the
// topic failed and was retried each second, and nothing was archived.
//
// Real parts: redis-server, the Runnel broker (dist/cli/runnel.js), KafkaJS
// as the producer, the archiver (dist/) in this process, delta-rs as reader.
import kafkajs from 'kafkajs';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { partitionTag } from '../../../common/keys.js';
import { startRunnel } from '../../helpers/runnel.js';
import { archiverEnv, builtArchiver, builtMetrics, memoryLogger, readDelta, redisForFile, sleep, waitFor } from './helpers.js';

const { Kafka, logLevel } = kafkajs;
const lab = redisForFile();

const FAR = '9000000000000000'; // ms: past JS Date's range, and past any yyyy-MM-dd date
const LONG_MAX = '9223372036854775807';

describe('a record timestamp the lake cannot hold', () => {
  it('CreateTime 9e15 in p0 stalls p0 with RN4007; p1 keeps committing; deleting the entry resumes p0', async () => {
    const topic = 'far-future';
    const dir = lab.dir('far-future');
    const broker = await startRunnel({ redisUrl: lab.redis.url });
    const kafka = new Kafka({ clientId: 'far-future', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 10 } });
    const admin = kafka.admin();
    const producer = kafka.producer();
    const { Archiver, loadConfig } = await builtArchiver();
    let a: InstanceType<typeof Archiver> | null = null;
    const sent = new Map<string, { value: string; ts: number }>(); // "p/offset" -> what the lake must hold
    try {
      await admin.connect();
      // Kafka's own knob for far-future CreateTime (KIP-937): a topic that allows it, as such data is
      // allowed in. Keeps the test valid once the broker checks message.timestamp.after.max.ms.
      await admin.createTopics({ topics: [{ topic, numPartitions: 2, configEntries: [{ name: 'message.timestamp.after.max.ms', value: LONG_MAX }] }] });
      await producer.connect();
      const now = Date.now();
      const send = async (partition: number, values: string[], ts?: string) => {
        const r = await producer.send({ topic, acks: -1, messages: values.map((value, i) => ({ partition, value, timestamp: ts ?? String(now + i) })) });
        const base = Number(r[0]!.baseOffset);
        if (ts === undefined) values.forEach((value, i) => sent.set(`${partition}/${base + i}`, { value, ts: now + i }));
        return base;
      };
      for (let i = 0; i < 3; i++) await send(0, [`p0-a${i}-0`, `p0-a${i}-1`]);
      const farOffset = await send(0, ['the far future'], FAR);
      await send(0, ['p0-behind-0', 'p0-behind-1']);
      for (let i = 0; i < 3; i++) await send(1, [`p1-a${i}-0`, `p1-a${i}-1`]);
      const rec = JSON.parse((await lab.redis.client.hget('rn:topics', topic))!) as { placement?: number[] };
      const tag = (p: number) => partitionTag(topic, p, rec.placement?.[p] ?? 0);
      const archived = async (p: number) => Number((await lab.redis.client.hget(`rn:p:${tag(p)}:meta`, 'archived')) ?? -1);
      const lastSent = (p: number) => Math.max(...[...sent.keys()].filter((k) => k.startsWith(`${p}/`)).map((k) => Number(k.split('/')[1])));

      const cfg = loadConfig(archiverEnv({ redisUrl: lab.redis.url, lake: `file://${dir}`, extra: { RUNNEL_ARCHIVER_TOPICS: topic, RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '100' } }));
      const log = memoryLogger();
      a = new Archiver(cfg, undefined, { logger: log });
      const registry = new Registry();
      (await builtMetrics()).observeArchiver(registry, a);
      await a.start();
      const stallCode = (p: number) => a!.lag().find((l) => l.partition === p)?.stallCode;

      await waitFor(async () => (await archived(1)) === lastSent(1), 30_000, 'p1 archived');
      await waitFor(async () => (await archived(0)) === farOffset - 1, 30_000, 'p0 archived up to the far-future batch');
      await waitFor(async () => stallCode(0) === 'RN4007', 10_000, 'p0 reported stalled with RN4007');
      expect(stallCode(1)).toBeNull();

      // the other partition keeps committing new versions
      const v0 = (await readDelta(`file://${dir}/${topic}`)).version;
      await send(1, ['p1-b-0', 'p1-b-1']);
      await waitFor(async () => (await archived(1)) === lastSent(1), 30_000, 'p1 archived after the stall');
      expect((await readDelta(`file://${dir}/${topic}`)).version).toBeGreaterThan(v0);

      // retried with backoff, logged once, counted once
      await sleep(3500);
      const lines = log.lines.filter((l) => l.msg.startsWith('RN4007'));
      expect(lines).toHaveLength(1);
      expect(lines[0]!.msg).toContain(`${topic}/0 stalled at stream entry`);
      expect(lines[0]!.msg).toContain(`record at offset ${farOffset} has timestamp ${FAR} ms`);
      expect(lines[0]!.fields).toMatchObject({ topic, partition: 0, baseOffset: farOffset });
      expect(log.lines.filter((l) => l.msg.startsWith('RN4003') || l.msg.startsWith('RN4001'))).toEqual([]);
      expect(a.stats.unencodableBatches).toBe(1);
      expect(a.stats.corruptBatches).toBe(0);
      const metrics = await registry.metrics();
      expect(metrics).toMatch(/^runnel_archiver_unencodable_batches_total 1$/m);
      expect(metrics).toContain(`runnel_archiver_partition_stalled{topic="${topic}",partition="0",code="RN4007"} 1`);
      expect(metrics).toContain(`runnel_archiver_partition_stalled{topic="${topic}",partition="1",code=""} 0`);

      // the operator's way past it (docs/operations.md): delete that entry from the log
      const entries = (await lab.redis.client.xrange(`rn:p:${tag(0)}:log`, '-', '+')) as [string, string[]][];
      const bad = entries.find(([id]) => id.startsWith(`${farOffset}-`));
      expect(bad).toBeDefined();
      expect(await lab.redis.client.xdel(`rn:p:${tag(0)}:log`, bad![0])).toBe(1);
      await waitFor(async () => (await archived(0)) === lastSent(0), 90_000, 'p0 archived after the entry was removed');
      expect(stallCode(0)).toBeNull();
      expect(log.lines.some((l) => l.msg.startsWith('RN4006') && l.msg.includes(`${topic}/0`))).toBe(true);
    } finally {
      await producer.disconnect().catch(() => {});
      await admin.disconnect().catch(() => {});
      await a?.stop();
      await broker.stop();
    }
    // a real Delta reader sees every record except the removed one, timestamps and dates exact
    const read = await readDelta(`file://${dir}/${topic}`);
    const got = new Map(read.rows.map((r) => [`${r[0]}/${r[1]}`, { value: Buffer.from(r[5]!, 'base64').toString(), ts: r[2] / 1000, date: r[7] }]));
    const want = new Map([...sent].map(([k, s]) => [k, { ...s, date: new Date(s.ts).toISOString().slice(0, 10) }]));
    expect(got).toEqual(want);
  }, 180_000);
});
