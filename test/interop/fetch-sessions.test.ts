// Incremental fetch sessions (KIP-227) over the wire, with the same
// expectations for Runnel and for Kafka (RUNNEL_TEST_TARGET=kafka): a full
// fetch at epoch 0 opens a session; incremental fetches name only what
// changed and are answered with only what changed; a replayed epoch, an
// unknown session and a closed session are refused with Kafka's errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Fetch } from '../../broker/src/protocol/messages/fetch.js';
import { ErrorCode } from '../../common/errors.js';
import { WireClient } from '../helpers/wire.js';
import { wireCreateTopic, wireProduce } from '../helpers/faults.js';
import { buildBatch } from '../helpers/batches.js';
import { waitFor } from '../helpers/procs.js';
import { startTarget, targetKindFromEnv, type Target } from '../helpers/target.js';

const KIND = targetKindFromEnv();
let target: Target;
let c: WireClient;
const TOPIC = 'fetch-sessions';
const V = 12; // by topic name; v13+ names topics by id and is covered by the Java clients

beforeAll(async () => {
  target = await startTarget();
  const port = Number(target.bootstrap.split(':')[1]);
  await waitFor('topic created', async () => [0, 36].includes(await wireCreateTopic(port, TOPIC, 3)), { timeoutMs: 30_000, intervalMs: 500 });
  c = await WireClient.connect(port);
});

afterAll(async () => {
  c?.close();
  await target?.stop();
});

const fetch = (sessionId: number, sessionEpoch: number, parts: Array<[number, number]>, forgotten: number[] = []) => c.request(Fetch, V, {
  replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId, sessionEpoch,
  topics: parts.length ? [{ topic: TOPIC, partitions: parts.map(([partition, fetchOffset]) => ({ partition, currentLeaderEpoch: -1, fetchOffset, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1 << 20 })) }] : [],
  forgottenTopicsData: forgotten.length ? [{ topic: TOPIC, partitions: forgotten }] : [],
  rackId: '',
});

/** [partition, high watermark, record bytes] of every partition answered. */
const answered = (r: Record<string, any>): Array<[number, number, number]> =>
  r.responses.flatMap((t: any) => t.partitions.map((p: any) => [p.partitionIndex, Number(p.highWatermark), recordBytes(p.records) > 0 ? 1 : 0]))
    .sort((a: number[], b: number[]) => a[0]! - b[0]!);

const recordBytes = (records: Buffer | Buffer[] | null): number =>
  records === null ? 0 : Buffer.isBuffer(records) ? records.length : records.reduce((n, b) => n + b.length, 0);

/** One record; retried while a just-created topic has no leader yet (Kafka answers NOT_LEADER_OR_FOLLOWER for a moment). */
const produce = (partition: number, value: string) => waitFor(`produce to ${partition}`, async () => {
  const r = await wireProduce(c, TOPIC, partition, buildBatch([{ key: null, value: Buffer.from(value) }]));
  if (r.errorCode !== 0 && r.errorCode !== ErrorCode.NOT_LEADER_OR_FOLLOWER) throw new Error(`produce: error ${r.errorCode}`);
  return r.errorCode === 0;
}, { timeoutMs: 30_000, intervalMs: 200 });

describe(`incremental fetch sessions against ${KIND}`, () => {
  it('a session answers only partitions with news, and refuses replayed epochs and unknown sessions', async () => {
    await produce(0, 'a');
    const full = await fetch(0, 0, [[0, 0], [1, 0], [2, 0]]);
    expect(full.errorCode).toBe(0);
    expect(full.sessionId).not.toBe(0);
    expect(answered(full)).toEqual([[0, 1, 1], [1, 0, 0], [2, 0, 0]]);
    const id = full.sessionId as number;

    // The client moves partition 0 past what it read: nothing new anywhere.
    const quiet = await fetch(id, 1, [[0, 1]]);
    expect([quiet.errorCode, quiet.sessionId, answered(quiet)]).toEqual([0, id, []]);

    // New records on partition 2 come back although the request names no partition.
    await produce(2, 'b');
    expect(answered(await fetch(id, 2, []))).toEqual([[2, 1, 1]]);

    // The same epoch again, and a session that does not exist.
    expect((await fetch(id, 2, [])).errorCode).toBe(ErrorCode.INVALID_FETCH_SESSION_EPOCH);
    expect((await fetch(id === 7 ? 8 : 7, 1, [])).errorCode).toBe(ErrorCode.FETCH_SESSION_ID_NOT_FOUND);

    // Forget partition 2 and move nothing: partition 2's new record is not sent again.
    await produce(2, 'c');
    expect(answered(await fetch(id, 3, [], [2]))).toEqual([]);

    // A full fetch at epoch -1 closes the session; it cannot be used afterwards.
    const closing = await fetch(id, -1, [[0, 1]]);
    expect([closing.errorCode, closing.sessionId]).toEqual([0, 0]);
    expect((await fetch(id, 4, [])).errorCode).toBe(ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
  });
});
