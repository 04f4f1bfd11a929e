// One group per id, whatever its type, as Kafka keeps it: a share group's id
// refuses a consumer member's first ConsumerGroupHeartbeat with
// GROUP_ID_NOT_FOUND and a classic member's first JoinGroup with
// INCONSISTENT_GROUP_PROTOCOL (what Kafka 4.4 answers), and a consumer group's
// id refuses a share member with GROUP_ID_NOT_FOUND. Raw requests over the wire (test/helpers/wire.ts);
// RUNNEL_TEST_TARGET=kafka runs the same against Apache Kafka 4.4.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startTarget, type Target } from '../../helpers/target.js';
import type { WireClient } from '../../helpers/wire.js';
import { ErrorCode } from '../../../common/errors.js';
import { waitFor } from '../../helpers/procs.js';
import { connect, createTopic } from '../compaction/support.js';
import { FindCoordinator } from '../../../broker/src/protocol/messages/find-coordinator.js';
import { JoinGroup } from '../../../broker/src/protocol/messages/join-group.js';
import { ConsumerGroupHeartbeat } from '../../../broker/src/protocol/messages/consumer-group-heartbeat.js';
import { ShareGroupHeartbeat } from '../../../broker/src/protocol/messages/share-group-heartbeat.js';

let target: Target;
let c: WireClient;
const topic = `clash-${Date.now()}`;

beforeAll(async () => {
  target = await startTarget();
  c = await connect(target.bootstrap);
  await createTopic(c, topic, {});
}, 120_000);
afterAll(async () => {
  c?.close();
  await target?.stop();
});

/** Waits until the broker coordinates `group` (Kafka loads its coordinator partition first). */
async function coordinator(group: string): Promise<void> {
  await waitFor(`coordinator of ${group}`, async () => {
    const r = await c.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: [group] });
    return r.coordinators[0].errorCode === ErrorCode.NONE;
  }, { timeoutMs: 30_000, intervalMs: 200 });
}

const shareJoin = (groupId: string) =>
  c.request(ShareGroupHeartbeat, 1, { groupId, memberId: randomUUID(), memberEpoch: 0, rackId: null, subscribedTopicNames: [topic] });
const consumerJoin = (groupId: string) =>
  c.request(ConsumerGroupHeartbeat, 1, {
    groupId, memberId: randomUUID(), memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
    subscribedTopicNames: [topic], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
  });
const classicJoin = (groupId: string) =>
  c.request(JoinGroup, 9, {
    groupId, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', groupInstanceId: null, protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: Buffer.alloc(0) }], reason: null,
  });

describe(`one group per id (${process.env.RUNNEL_TEST_TARGET ?? 'runnel'})`, () => {
  it("a share group's id refuses a consumer member (GROUP_ID_NOT_FOUND) and a classic one (INCONSISTENT_GROUP_PROTOCOL); a consumer group's id refuses a share member", async () => {
    const share = `share-${Date.now()}`;
    await coordinator(share);
    await waitFor('the share member joins', async () => (await shareJoin(share)).errorCode === ErrorCode.NONE, { timeoutMs: 30_000, intervalMs: 300 });
    const asConsumer = await consumerJoin(share);
    expect(asConsumer.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect(asConsumer.errorMessage).toBe(`Group ${share} is not a consumer group.`);
    expect((await classicJoin(share)).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);

    const consumer = `consumer-${Date.now()}`;
    await coordinator(consumer);
    expect((await consumerJoin(consumer)).errorCode).toBe(ErrorCode.NONE);
    const asShare = await shareJoin(consumer);
    expect(asShare.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect(asShare.errorMessage).toBe(`Group ${consumer} is not a share group.`);
  });
});
