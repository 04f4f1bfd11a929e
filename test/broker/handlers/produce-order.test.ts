// A producer's pipelined batches for one partition are appended in the order
// they arrived, whatever each request waits for first; and a batch that failed
// retriably keeps the producer's later batches out until it is retried
// (append-order.ts, sequence-holes.ts). Both were seen broken in a Redis
// Cluster failover: the first batches of a producer on a partition failed
// (NOT_LEADER_OR_FOLLOWER), a later one was appended as if the producer were
// new, and the retries of the first were refused until the client gave up.
import { describe, expect, it } from 'vitest';
import { produceHandler } from '../../../broker/src/handlers/produce.js';
import type { RequestContext } from '../../../broker/src/handlers/support/types.js';
import { ErrorCode } from '../../../common/errors.js';
import { MemoryLogStore } from '../support/memory-log-store.js';
import { unitServices } from '../support/services.js';
import { buildBatch } from '../../helpers/batches.js';
import { newSession } from '../../../broker/src/security/session.js';

const ctx: RequestContext = { apiKey: 0, apiVersion: 9, correlationId: 1, clientId: 't', session: newSession(1, '127.0.0.1') };

/** An idempotent batch of `n` records of producer 7, epoch 0, from sequence `seq`. */
const batch = (seq: number, n = 5) => buildBatch(Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`v${seq + i}`) })), { producerId: 7, producerEpoch: 0, baseSequence: seq });

const request = (topic: string, records: Buffer) => ({
  transactionalId: null, acks: -1, timeoutMs: 1000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }],
});

type Answer = { errorCode: number; baseOffset: number; errorMessage: string | null };
const answerOf = (res: unknown): Answer => (res as { responses: { partitionResponses: Answer[] }[] }).responses[0]!.partitionResponses[0]!;

/**
 * A store whose replica counts (read before an acks=all append on a topic
 * with min.insync.replicas=2) answer after the given delays, in call order,
 * with the given counts: a slow read holds its request back.
 */
class ReplicaCountStore extends MemoryLogStore {
  constructor(private readonly answers: { delayMs: number; replicas: number }[]) {
    super();
  }

  override async connectedReplicas(): Promise<number> {
    const a = this.answers.shift() ?? { delayMs: 0, replicas: 1 };
    await new Promise((r) => setTimeout(r, a.delayMs));
    return a.replicas;
  }

  override async waitReplicas(): Promise<{ replicas: number; aofLocal: boolean }> {
    return { replicas: 1, aofLocal: false };
  }
}

async function setup(store: MemoryLogStore) {
  const b = unitServices({ store });
  await b.log.createTopic('t', 1, { 'min.insync.replicas': '2' });
  return b;
}

describe('produce: appends keep arrival order per partition', () => {
  it('a later request that waits less is still appended after the earlier one', async () => {
    const b = await setup(new ReplicaCountStore([{ delayMs: 40, replicas: 1 }, { delayMs: 0, replicas: 1 }]));
    const first = produceHandler.handle(request('t', batch(0)), ctx, b);
    const second = produceHandler.handle(request('t', batch(5)), ctx, b);
    const [a, c] = [answerOf(await first), answerOf(await second)];
    expect([a.errorCode, a.baseOffset]).toEqual([ErrorCode.NONE, 0]);
    expect([c.errorCode, c.baseOffset]).toEqual([ErrorCode.NONE, 5]);
  });

  it('a retriably failed first batch keeps the later ones out until it is retried', async () => {
    // The first request finds no replica (NOT_ENOUGH_REPLICAS, retriable); the second would
    // otherwise be appended as the first batch of a producer the partition does not know.
    const b = await setup(new ReplicaCountStore([{ delayMs: 0, replicas: 0 }, { delayMs: 0, replicas: 1 }]));
    const first = answerOf(await produceHandler.handle(request('t', batch(0)), ctx, b));
    expect(first.errorCode).toBe(ErrorCode.NOT_ENOUGH_REPLICAS);
    const early = answerOf(await produceHandler.handle(request('t', batch(5)), ctx, b));
    expect(early.errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect(early.errorMessage).toMatch(/sequence 0 .* must be retried before sequence 5/);
    // The client retries in order: both land, densely, once each.
    const retried = answerOf(await produceHandler.handle(request('t', batch(0)), ctx, b));
    const next = answerOf(await produceHandler.handle(request('t', batch(5)), ctx, b));
    expect([retried.errorCode, retried.baseOffset, next.errorCode, next.baseOffset]).toEqual([ErrorCode.NONE, 0, ErrorCode.NONE, 5]);
    expect(b.log.sequenceHoles.size).toBe(0);
  });

  it('a producer the partition does not know may still start above sequence 0 (KIP-360) when nothing failed', async () => {
    const b = await setup(new ReplicaCountStore([]));
    const a = answerOf(await produceHandler.handle(request('t', batch(40)), ctx, b));
    expect([a.errorCode, a.baseOffset]).toEqual([ErrorCode.NONE, 0]);
  });

  it('turns are all given back, also when a request fails before its append', async () => {
    const b = await setup(new ReplicaCountStore([{ delayMs: 0, replicas: 0 }]));
    await produceHandler.handle(request('t', batch(0)), ctx, b);
    await produceHandler.handle(request('missing', batch(0)), ctx, b);
    expect(b.log.appendOrder.pending).toBe(0);
  });
});
