// A tiered topic whose lake is an S3 bucket (moto, as the archiver's S3
// suites use): local.retention.ms=1000 leaves Redis only the newest batch of
// each partition once the archiver committed the rest, and kcat reads the
// topic from offset 0 through the objects in S3 into Redis, every record once
// and byte for byte.
import { beforeAll, describe, expect, it } from 'vitest';
import { diffRecords, EARLIEST, EARLIEST_LOCAL, genRecords, kcatReplay, LATEST, LATEST_TIERED, produce, useTiered, type Rec } from './support.js';
import { waitFor } from '../../helpers/procs.js';

const TOPIC = 'tiered-replay-s3';
const PARTS = 3;
const PER = 600;
const CHUNK = 40;

const t = useTiered({ s3: true });
let records: Rec[] = [];

beforeAll(async () => {
  await t.createTopic(TOPIC, PARTS, { 'local.retention.ms': '1000' });
  records = genRecords(PARTS, PER, { seed: 405 });
  await produce(t.bootstrap, TOPIC, records, { chunk: CHUNK });
  // Every batch is an hour old: once committed to the lake, all but the newest leave Redis.
  await waitFor('the archiver to commit every record', async () => (await t.redisPartitions(TOPIC, PARTS)).every((r) => r.meta.archived === String(PER - 1)), { timeoutMs: 60_000 });
  await t.waitTrimmed(TOPIC, PARTS, PER - CHUNK - 1, 60_000);
});

describe('tiered topic on S3: replay from offset 0', () => {
  it('Redis keeps the newest batch of each partition, the bucket everything', async () => {
    const [earliest, local, latest, tiered] = await Promise.all([EARLIEST, EARLIEST_LOCAL, LATEST, LATEST_TIERED].map((ts) => t.listOffsets(TOPIC, PARTS, ts)));
    const redis = await t.redisPartitions(TOPIC, PARTS);
    expect(earliest).toEqual(Array(PARTS).fill(0));
    expect(local).toEqual(Array(PARTS).fill(PER - CHUNK));
    expect(latest).toEqual(Array(PARTS).fill(PER));
    expect(tiered).toEqual(Array(PARTS).fill(PER - 1));
    expect(redis.map((r) => [r.entries, r.firstBaseOffset, r.meta.remoteLogStart])).toEqual(Array(PARTS).fill([1, PER - CHUNK, '0']));
  });

  it('kcat -C -o beginning -e reads every record once, byte for byte, from S3 and then Redis', async () => {
    const t0 = Date.now();
    const got = await kcatReplay(t.bootstrap, TOPIC);
    console.info(`tiered replay (S3): kcat read ${got.length} records in ${Date.now() - t0} ms`);
    expect(diffRecords(records, got)).toEqual([]);
    // Still so after the read: the first PER - CHUNK records of each partition came from S3.
    expect(await t.listOffsets(TOPIC, PARTS, EARLIEST_LOCAL)).toEqual(Array(PARTS).fill(PER - CHUNK));
  });
});
