// Per-record produce validation through confluent-kafka-python (librdkafka 2.x),
// driven by rdkafka_produce_validation.py (one Python process for all cases).
// - Keyless records on a compacted topic (librdkafka's own test 0011): the
//   response's record_errors (KIP-467) name the 10 bad records of the batch of
//   100. librdkafka (2.4+, rd_kafka_msgbatch_handle_Produce_result_record_errors)
//   fails those with INVALID_RECORD and the 90 others with
//   _INVALID_DIFFERENT_RECORD ("part of a batch which had one more more invalid
//   records"), so the application can send exactly those again; with one record
//   per batch the 90 are delivered at once. These are test 0011's expectations
//   against Kafka.
// - message.timestamp.after.max.ms (Kafka 4 default 1 hour): CreateTime 9e15
//   is refused with INVALID_TIMESTAMP (32), a current record is accepted; a
//   topic created (CreateTopics) or altered (IncrementalAlterConfigs) with
//   after.max.ms = Long.MAX accepts 9e15; DescribeConfigs shows the values.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTarget } from '../../helpers/target.js';
import { requireVenvPython, run, uniqueTopic } from './support.js';

const SCRIPT = fileURLToPath(new URL('./rdkafka_produce_validation.py', import.meta.url));
const LONG_MAX = '9223372036854775807';
const FAR = 9e15;

interface Delivery { error: string | null; code: number; offset: number | null }
interface Read { offset: number; key: string | null; value: string; ts: number }
interface Out {
  compacted: { one_batch: Delivery[]; resent: Record<string, Delivery>; read_one: Read[]; per_record: Delivery[]; read_single: Read[] };
  timestamps: {
    now: number;
    default: Delivery[];
    wide: Delivery[];
    after_alter: Delivery[];
    describe_default: Record<string, { value: string; default: boolean }>;
    describe_wide: Record<string, { value: string; default: boolean }>;
    read_default: Read[];
    read_wide: Read[];
  };
}

describe('produce validation through confluent-kafka (librdkafka)', () => {
  let target: Awaited<ReturnType<typeof startTarget>>;
  let out: Out;

  beforeAll(async () => {
    const python = requireVenvPython();
    target = await startTarget();
    const r = await run(python, [SCRIPT], { input: JSON.stringify({ bootstrap: target.bootstrap, suffix: uniqueTopic('pv') }), timeoutMs: 240_000 });
    if (r.code !== 0) throw new Error(`rdkafka_produce_validation.py exited ${r.code}: ${r.stderr}`);
    out = JSON.parse(r.stdout.toString('utf8')) as Out;
  });

  afterAll(async () => {
    await target?.stop();
  });

  const KEYLESS = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90];
  const keyed = Array.from({ length: 100 }, (_, i) => i).filter((i) => i % 10 !== 0);

  it('one batch of 100, 10 keyless, to a compacted topic: exactly the 10 keyless fail with INVALID_RECORD, the 90 others with _INVALID_DIFFERENT_RECORD', () => {
    const r = out.compacted.one_batch;
    expect(r.flatMap((d, i) => (d.error === 'INVALID_RECORD' ? [i] : []))).toEqual(KEYLESS);
    expect(r.flatMap((d, i) => (d.error === '_INVALID_DIFFERENT_RECORD' ? [i] : []))).toEqual(keyed);
  });

  it('the 90 sent again are delivered and readable, in order, nothing else stored', () => {
    expect(Object.keys(out.compacted.resent).map(Number)).toEqual(keyed);
    expect(Object.values(out.compacted.resent).every((d) => d.error === null)).toBe(true);
    expect(out.compacted.read_one.map((x) => [x.offset, x.value])).toEqual(keyed.map((i, n) => [n, `v${i}`]));
  });

  it('one record per batch (batch.size=1): the 10 keyless fail with INVALID_RECORD, the 90 are delivered and readable', () => {
    const r = out.compacted.per_record;
    expect(r.flatMap((d, i) => (d.error !== null ? [[i, d.error]] : []))).toEqual(KEYLESS.map((i) => [i, 'INVALID_RECORD']));
    expect(out.compacted.read_single.map((x) => x.value)).toEqual(keyed.map((i) => `v${i}`));
  });

  it('CreateTime 9e15 is refused with INVALID_TIMESTAMP (32) by default; a current record is accepted', () => {
    const [far, now] = out.timestamps.default;
    expect(far).toMatchObject({ error: 'INVALID_TIMESTAMP', code: 32 });
    expect(now).toMatchObject({ error: null });
    // The broker defaults (log.message.timestamp.*) show as STATIC_BROKER_CONFIG, as retention.ms does: not is_default for librdkafka.
    expect(Object.fromEntries(Object.entries(out.timestamps.describe_default).map(([k, v]) => [k, v.value]))).toEqual({
      'message.timestamp.type': 'CreateTime',
      'message.timestamp.before.max.ms': LONG_MAX,
      'message.timestamp.after.max.ms': '3600000',
    });
  });

  it('a topic created with message.timestamp.after.max.ms=Long.MAX accepts 9e15, and so does the default topic once altered', () => {
    expect(out.timestamps.describe_wide['message.timestamp.after.max.ms']).toEqual({ value: LONG_MAX, default: false });
    expect(out.timestamps.wide).toEqual([{ error: null, code: 0, offset: 0 }]);
    expect(out.timestamps.read_wide.map((r) => [r.value, r.ts])).toEqual([['far', FAR]]);
    expect(out.timestamps.after_alter).toMatchObject([{ error: null }]);
    expect(out.timestamps.read_default.map((r) => [r.value, r.ts])).toEqual([['now', out.timestamps.now], ['far2', FAR]]);
  });
});
