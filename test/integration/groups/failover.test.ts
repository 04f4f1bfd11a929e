// Coordinator failover through Redis: the broker process is killed (SIGKILL)
// while a consumer group is stable; the restarted broker loads the group from
// Redis with its generation, member, assignment and offsets, and the same
// member keeps heartbeating and consuming without a new generation.
import kafkajs from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/procs.js';
import { useBroker } from '../broker-fixture.js';
import { WireClient } from '../../helpers/wire.js';
import { ErrorCode } from '../../../common/errors.js';
import { DescribeGroups } from '../../../broker/src/protocol/messages/describe-groups.js';
import { FindCoordinator } from '../../../broker/src/protocol/messages/find-coordinator.js';
import { Heartbeat } from '../../../broker/src/protocol/messages/heartbeat.js';
import { JoinGroup } from '../../../broker/src/protocol/messages/join-group.js';
import { LeaveGroup } from '../../../broker/src/protocol/messages/leave-group.js';
import { OffsetCommit } from '../../../broker/src/protocol/messages/offset-commit.js';
import { OffsetFetch } from '../../../broker/src/protocol/messages/offset-fetch.js';
import { SyncGroup } from '../../../broker/src/protocol/messages/sync-group.js';

const { Kafka, logLevel } = kafkajs;
const fx = useBroker({ args: ['--set', 'group.initial.rebalance.delay.ms=0'] });

function respValue(raw: string): string {
  // Bulk string reply: $<len>\r\n<value>\r\n
  const lines = raw.split('\r\n');
  return lines[0]!.startsWith('$') ? lines[1]! : raw;
}

describe('group coordinator failover', () => {
  it('a broker crash keeps the generation, member and committed offsets', async () => {
    const t0 = Date.now();
    const kafka = new Kafka({ clientId: 'fo', brokers: [fx.broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 30, initialRetryTime: 100, maxRetryTime: 1000 } });
    const topic = 'fo-topic';
    const groupId = 'fo-group';
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }] });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: Array.from({ length: 20 }, (_, i) => ({ partition: i % 2, value: `a${i}` })) });

    const consumer = kafka.consumer({ groupId, sessionTimeout: 20_000, heartbeatInterval: 500, maxWaitTimeInMs: 200 });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const seen: string[] = [];
    await consumer.run({ autoCommitInterval: 100, eachMessage: async ({ message }) => { seen.push(message.value!.toString()); } });
    await waitFor('first 20 consumed and committed', async () => {
      if (seen.length < 20) return false;
      const f = await admin.fetchOffsets({ groupId, topics: [topic] });
      return f[0]!.partitions.every((p) => Number(p.offset) === 10);
    }, { timeoutMs: 60_000, intervalMs: 100 });
    const before = (await admin.describeGroups([groupId])).groups[0]!;
    expect(before.state).toBe('Stable');
    const generation = respValue(await fx.redis.command(`HGET rn:g:{${groupId}}:meta generation`));
    expect(Number(generation)).toBeGreaterThan(0);
    await admin.disconnect();

    // Crash and restart the broker: nothing is flushed on the way down.
    await fx.broker.kill();
    await fx.broker.restart();

    await producer.send({ topic, messages: Array.from({ length: 20 }, (_, i) => ({ partition: i % 2, value: `b${i}` })) });
    await waitFor('records after the restart consumed', () => seen.filter((v) => v.startsWith('b')).length >= 20, { timeoutMs: 60_000, intervalMs: 100 });

    const admin2 = kafka.admin();
    await admin2.connect();
    const after = (await admin2.describeGroups([groupId])).groups[0]!;
    expect(after.state).toBe('Stable');
    // Same member, same generation: the group was loaded, not rebuilt.
    expect(after.members.map((m) => m.memberId)).toEqual(before.members.map((m) => m.memberId));
    // KafkaJS rejoins after losing its connection (a leader rejoin rebalances, as on Kafka): the
    // generation continues from the stored one instead of starting over.
    const genAfter = Number(respValue(await fx.redis.command(`HGET rn:g:{${groupId}}:meta generation`)));
    expect(genAfter).toBeGreaterThanOrEqual(Number(generation));
    expect(genAfter).toBeLessThanOrEqual(Number(generation) + 1);
    // Nothing read twice: the offsets survived and the member kept its assignment.
    expect(seen.filter((v) => v.startsWith('a')).length).toBe(20);
    await waitFor('offsets after the restart committed', async () => {
      const f = await admin2.fetchOffsets({ groupId, topics: [topic] });
      return f[0]!.partitions.every((p) => Number(p.offset) === 20);
    }, { timeoutMs: 30_000, intervalMs: 200 });
    await consumer.disconnect();
    await producer.disconnect();
    await admin2.disconnect();
    console.log(`[groups/failover] KafkaJS: generation ${generation} -> ${genAfter}, same member, offsets kept across a broker crash; ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  });

  it('wire level: after a crash the same member heartbeats, syncs and commits at the same generation', async () => {
    const groupId = 'fo-wire';
    const topic = 'fo-topic';
    let c = await WireClient.connect(fx.broker.port);
    const protocols = [{ name: 'range', metadata: Buffer.from([0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]) }];
    const joinBody = { groupId, sessionTimeoutMs: 30_000, rebalanceTimeoutMs: 30_000, groupInstanceId: null, protocolType: 'consumer', protocols, reason: null };
    const first = await c.request(JoinGroup, 9, { ...joinBody, memberId: '' });
    expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    const j = await c.request(JoinGroup, 9, { ...joinBody, memberId: first.memberId });
    expect(j).toMatchObject({ errorCode: 0, generationId: 1, leader: first.memberId });
    const memberId = j.memberId as string;
    const s = await c.request(SyncGroup, 5, { groupId, generationId: 1, memberId, groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [{ memberId, assignment: Buffer.from('assigned') }] });
    expect(s.errorCode).toBe(0);
    const commit = await c.request(OffsetCommit, 8, { groupId, generationIdOrMemberEpoch: 1, memberId, groupInstanceId: null, topics: [{ name: topic, partitions: [{ partitionIndex: 1, committedOffset: 7, committedLeaderEpoch: 3, committedMetadata: 'wire-meta' }] }] });
    expect(commit.topics[0].partitions[0].errorCode).toBe(0);
    c.close();

    await fx.broker.kill();
    await fx.broker.restart();
    c = await WireClient.connect(fx.broker.port);
    // Like a client: until the restarted broker holds the coordinator slot again it answers
    // NOT_COORDINATOR / COORDINATOR_NOT_AVAILABLE; retry, never lose the member.
    let hb = -1;
    const codes: number[] = [];
    await waitFor('heartbeat accepted after the restart', async () => {
      hb = (await c.request(Heartbeat, 4, { groupId, generationId: 1, memberId, groupInstanceId: null })).errorCode;
      codes.push(hb);
      return hb !== ErrorCode.NOT_COORDINATOR && hb !== ErrorCode.COORDINATOR_NOT_AVAILABLE;
    }, { timeoutMs: 25_000, intervalMs: 200 });
    expect(hb, `heartbeat codes ${codes.join(',')}`).toBe(0);
    const fc = await c.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: [groupId] });
    expect(fc.coordinators[0]).toMatchObject({ key: groupId, errorCode: 0, port: fx.broker.port });
    expect((await c.request(Heartbeat, 4, { groupId, generationId: 0, memberId, groupInstanceId: null })).errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    const again = await c.request(SyncGroup, 5, { groupId, generationId: 1, memberId, groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [] });
    expect(again.errorCode).toBe(0);
    expect(Buffer.from(again.assignment).toString()).toBe('assigned');
    const f = await c.request(OffsetFetch, 8, { groups: [{ groupId, topics: [{ name: topic, partitionIndexes: [1] }] }], requireStable: false });
    expect(f.groups[0].topics[0].partitions[0]).toMatchObject({ partitionIndex: 1, committedOffset: 7, committedLeaderEpoch: 3, metadata: 'wire-meta', errorCode: 0 });
    const c2 = await c.request(OffsetCommit, 8, { groupId, generationIdOrMemberEpoch: 1, memberId, groupInstanceId: null, topics: [{ name: topic, partitions: [{ partitionIndex: 1, committedOffset: 8, committedLeaderEpoch: 3, committedMetadata: null }] }] });
    expect(c2.topics[0].partitions[0].errorCode).toBe(0);
    const d = await c.request(DescribeGroups, 5, { groups: [groupId], includeAuthorizedOperations: false });
    expect(d.groups[0]).toMatchObject({ groupState: 'Stable', protocolData: 'range' });
    expect(d.groups[0].members.map((m: any) => m.memberId)).toEqual([memberId]);
    const leave = await c.request(LeaveGroup, 5, { groupId, members: [{ memberId, groupInstanceId: null, reason: 'done' }] });
    expect(leave.members[0].errorCode).toBe(0);
    c.close();
  });
});
