// A tiered topic (remote.storage.enable=true, KIP-405) read from offset 0 by
// three real clients after Redis dropped most of it: kcat (librdkafka, no
// group), a Java consumer group (kafka-clients) and a confluent-kafka consumer
// group. Each must see every record once, in offset order per partition, with
// the produced bytes, headers and timestamps: the lake's part rebuilt from
// Parquet, then, with no gap or duplicate, the part still in Redis (records
// produced after the trim, with the archiver stopped, only there). Local
// lake; the suite's backend (redis, valkey or a Redis Cluster).
import { beforeAll, describe, expect, it } from 'vitest';
import {
  confluentReplay,
  diffRecords,
  EARLIEST,
  EARLIEST_LOCAL,
  genRecords,
  javaGroupReplay,
  kcatReplay,
  LATEST,
  LATEST_TIERED,
  produce,
  useTiered,
  type Rec,
} from './support.js';
import { waitFor } from '../../helpers/procs.js';
import { commitSimpleOffsets } from '../../helpers/wire.js';

const TOPIC = 'tiered-replay';
const PARTS = 3;
const PER = 1000;
const TAIL = 30;
// Redis keeps about this much of each partition once the archiver committed it.
const LOCAL_BYTES = 128 * 1024;

const t = useTiered();
let records: Rec[] = [];

let local: number[] = [];
// Record i of a partition has timestamp startTs + 10 i + i % 3 (genRecords).
let startTs = 0;

beforeAll(async () => {
  await t.createTopic(TOPIC, PARTS, { 'local.retention.ms': '-2', 'local.retention.bytes': String(LOCAL_BYTES) });
  startTs = Date.now() - 3_600_000;
  const first = genRecords(PARTS, PER, { startTs });
  const t0 = Date.now();
  await produce(t.bootstrap, TOPIC, first);
  const produced = Date.now();
  await t.waitTrimmed(TOPIC, PARTS, PER / 2, 120_000);
  // All of the first part in the lake, then no archiver: the Redis log start stays
  // where it is, and what is produced next is in Redis only.
  await waitFor('the archiver to commit every record', async () => (await t.redisPartitions(TOPIC, PARTS)).every((r) => r.meta.archived === String(PER - 1)), { timeoutMs: 60_000 });
  await t.archiver.kill('SIGTERM');
  local = await settledLocalStart();
  console.info(`tiered replay: produced ${first.length} records in ${produced - t0} ms; Redis trimmed to ${local.join(',')} ${Date.now() - produced} ms later`);
  const tail = genRecords(PARTS, TAIL, { seed: 30, startTs, firstIndex: PER });
  await produce(t.bootstrap, TOPIC, tail);
  records = [...first, ...tail];
  for (let p = 0; p < PARTS; p++) {
    expect(first.filter((r) => r.partition === p).map((r) => r.offset)).toEqual(Array.from({ length: PER }, (_, i) => i));
    expect(tail.filter((r) => r.partition === p).map((r) => r.offset)).toEqual(Array.from({ length: TAIL }, (_, i) => PER + i));
  }
});

/** EARLIEST_LOCAL once the retention passes after the last commit are done: the same over 2 s (four passes). */
async function settledLocalStart(): Promise<number[]> {
  let last = await t.listOffsets(TOPIC, PARTS, EARLIEST_LOCAL);
  let since = Date.now();
  await waitFor('the Redis log start to settle', async () => {
    const now = await t.listOffsets(TOPIC, PARTS, EARLIEST_LOCAL);
    if (now.join() !== last.join()) [last, since] = [now, Date.now()];
    return Date.now() - since >= 2000;
  }, { timeoutMs: 30_000, intervalMs: 250 });
  return last;
}

/** A read that started at 0 went through the lake (below EARLIEST_LOCAL) and Redis (from it, the tail only there). */
async function sameTiers(): Promise<void> {
  expect(await t.listOffsets(TOPIC, PARTS, EARLIEST_LOCAL)).toEqual(local);
  expect(await t.listOffsets(TOPIC, PARTS, LATEST_TIERED)).toEqual(Array(PARTS).fill(PER - 1));
}

describe('tiered topic replay from offset 0', () => {
  it('Redis holds only the newest records, the lake the rest: EARLIEST 0, EARLIEST_LOCAL past half, LATEST_TIERED the last archived offset', async () => {
    const [earliest, latest, tiered] = await Promise.all([EARLIEST, LATEST, LATEST_TIERED].map((ts) => t.listOffsets(TOPIC, PARTS, ts)));
    const redis = await t.redisPartitions(TOPIC, PARTS);
    console.info(`tiered replay: Redis per partition ${redis.map((r) => `${r.key}: ${r.entries} batches ${r.memoryBytes} B from ${r.firstBaseOffset}`).join('; ')}; LATEST_TIERED ${tiered!.join(',')}`);
    for (let p = 0; p < PARTS; p++) {
      expect(earliest![p]).toBe(0);
      expect(latest![p]).toBe(PER + TAIL);
      expect(local[p]).toBeGreaterThan(PER / 2);
      // Redis trims only what the archiver committed: the first part.
      expect(local[p]).toBeLessThanOrEqual(PER);
      // The lake holds the first part, none of the tail.
      expect(tiered![p]).toBe(PER - 1);
      // Whole batches left the stream: its first batch starts at the Redis log start.
      expect(redis[p]!.firstBaseOffset).toBe(local[p]);
      expect(redis[p]!.meta.logStartOffset).toBe(String(local[p]));
      expect(redis[p]!.meta.remoteLogStart).toBe('0');
      expect(redis[p]!.meta.archived).toBe(String(PER - 1));
    }
  });

  it('kcat -C -o beginning -e reads every record once, byte for byte, across the tiers', async () => {
    const t0 = Date.now();
    const got = await kcatReplay(t.bootstrap, TOPIC);
    console.info(`tiered replay: kcat read ${got.length} records in ${Date.now() - t0} ms`);
    expect(diffRecords(records, got)).toEqual([]);
    await sameTiers();
  });

  it('a Java consumer group (subscribe, auto.offset.reset=earliest) reads every record once, byte for byte, across the tiers', async () => {
    const t0 = Date.now();
    const got = await javaGroupReplay(t.bootstrap, TOPIC, 'tiered-replay-java', records.length);
    console.info(`tiered replay: Java group read ${got.length} records in ${Date.now() - t0} ms (JVM start and group join included)`);
    expect(diffRecords(records, got)).toEqual([]);
    await sameTiers();
  });

  it('a confluent-kafka consumer group reads every record once, byte for byte, across the tiers', async () => {
    const t0 = Date.now();
    const { records: got, errors } = await confluentReplay(t.bootstrap, TOPIC, 'tiered-replay-confluent', records.length);
    console.info(`tiered replay: confluent-kafka group read ${got.length} records in ${Date.now() - t0} ms`);
    expect(errors).toEqual([]);
    expect(diffRecords(records, got)).toEqual([]);
    await sameTiers();
  });

  it('kcat started at an offset, or at a timestamp, inside the lake reads from there to the end', async () => {
    const fromOffset = await kcatReplay(t.bootstrap, TOPIC, ['-o', '333']);
    expect(diffRecords(records.filter((r) => r.offset >= 333), fromOffset)).toEqual([]);
    // The first record at or after startTs + 2005 is record 201 (at startTs + 2010), in every partition.
    const fromTime = await kcatReplay(t.bootstrap, TOPIC, ['-o', `s@${startTs + 2005}`]);
    expect(diffRecords(records.filter((r) => r.offset >= 201), fromTime)).toEqual([]);
    await sameTiers();
  });

  it('a group whose committed offsets lie in the lake resumes there (confluent-kafka)', async () => {
    const group = 'tiered-replay-resume';
    const committed = [17, 250, local[2]! - 1];
    expect(await commitSimpleOffsets(t.broker.port, group, TOPIC, committed)).toEqual([0, 0, 0]);
    const want = records.filter((r) => r.offset >= committed[r.partition]!);
    const { records: got, errors } = await confluentReplay(t.bootstrap, TOPIC, group, want.length);
    expect(errors).toEqual([]);
    expect(diffRecords(want, got)).toEqual([]);
    await sameTiers();
  });
});
