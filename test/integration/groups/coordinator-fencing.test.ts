// Issue 8, coordinator fencing: a group coordinator that lost its slot without
// noticing must not roll committed offsets back. Two brokers share one Redis;
// broker 1 coordinates a consumer group whose member commits offsets.
//
//  1. Network partition between broker 1 and Redis (a TCP relay that stops
//     forwarding, in both directions): a commit sent to broker 1 just before
//     passes its "do I coordinate?" check and its Redis write is held in the
//     partition. Broker 2 takes the slot over once the lease expires and the
//     member's commits continue there with higher offsets. When the partition
//     heals, the held write reaches Redis: it must be refused (coordinator
//     epoch fencing) and answered NOT_COORDINATOR, and the committed offset in
//     Redis never goes backwards. Without fencing the held write lands and
//     rolls the offset back.
//  2. SIGSTOP of broker 1 with a commit in flight to it (sitting unread in its
//     socket), takeover by broker 2, commits continue, SIGCONT: the stale
//     broker answers NOT_COORDINATOR and the offset never goes backwards.
//
// Two Runnel brokers on one Redis have no single-node Apache Kafka
// equivalent, so the file is skipped with RUNNEL_TEST_TARGET=kafka.
import net from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keys } from '../../../common/keys.js';
import { ErrorCode } from '../../../common/errors.js';
import { FindCoordinator } from '../../../broker/src/protocol/messages/find-coordinator.js';
import { JoinGroup } from '../../../broker/src/protocol/messages/join-group.js';
import { OffsetCommit } from '../../../broker/src/protocol/messages/offset-commit.js';
import { SyncGroup } from '../../../broker/src/protocol/messages/sync-group.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { HOST, sleep, waitFor } from '../../helpers/procs.js';
import { targetKindFromEnv } from '../../helpers/target.js';
import { WireClient } from '../../helpers/wire.js';
import { signal, wireCreateTopic } from '../../helpers/faults.js';
import { RedisGroupStore } from '../../../broker/src/redis/redis-group-store.js';
import { CoordinatorFencedError, type CommittedOffset, type StoredGroup } from '../../../broker/src/groups/group-store.js';

const onKafka = targetKindFromEnv() === 'kafka';
const LEASE_MS = 2000;
const TICK_MS = 250;
const TOPIC = 'fence-topic';
const keys = new Keys('rn');

/** A TCP relay to Redis that can stop forwarding (both directions, data kept in order) and resume: a network partition. */
class PartitionableLink {
  private held: Array<() => void> = [];
  private cut = false;
  private readonly sockets = new Set<net.Socket>();
  private server!: net.Server;
  port = 0;

  static async start(redisPort: number): Promise<PartitionableLink> {
    const l = new PartitionableLink();
    l.server = net.createServer((client) => {
      const upstream = net.connect({ host: HOST, port: redisPort });
      for (const s of [client, upstream]) l.sockets.add(s);
      const forward = (from: net.Socket, to: net.Socket): void => {
        from.on('data', (d: Buffer) => {
          if (l.cut) l.held.push(() => to.write(d));
          else to.write(d);
        });
      };
      forward(client, upstream);
      forward(upstream, client);
      const close = (): void => { client.destroy(); upstream.destroy(); l.sockets.delete(client); l.sockets.delete(upstream); };
      for (const s of [client, upstream]) { s.on('error', close); s.on('close', close); }
    });
    await new Promise<void>((res) => l.server.listen(0, HOST, () => res()));
    l.port = (l.server.address() as net.AddressInfo).port;
    return l;
  }

  partition(): void { this.cut = true; }

  heal(): void {
    this.cut = false;
    const held = this.held;
    this.held = [];
    for (const w of held) w();
  }

  async close(): Promise<void> {
    this.heal();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((res) => this.server.close(() => res()));
  }
}

let redis: RedisServer;
let r: Redis;
let link: PartitionableLink;
const brokers = new Map<number, RunnelBroker>();

beforeAll(async () => {
  if (onKafka) return;
  redis = await startRedis();
  r = new Redis(redis.url);
  link = await PartitionableLink.start(redis.port);
  const args = (id: number) => ['--node-id', String(id), '--set', `broker.lease.ms=${LEASE_MS}`, '--set', `leadership.tick.ms=${TICK_MS}`, '--set', 'group.initial.rebalance.delay.ms=0'];
  // Broker 1 reaches Redis through the link that the first test cuts.
  brokers.set(1, await startRunnel({ redisUrl: `redis://${HOST}:${link.port}`, args: args(1) }));
  brokers.set(2, await startRunnel({ redisUrl: redis.url, args: args(2) }));
});

afterAll(async () => {
  for (const b of brokers.values()) {
    try { process.kill(b.proc().pid, 'SIGCONT'); } catch { /* gone */ }
    await b.stop().catch(() => undefined);
  }
  await link?.close();
  r?.disconnect();
  await redis?.stop();
});

const port = (id: number): number => brokers.get(id)!.port;

async function coordinatorSeenBy(id: number, groupId: string): Promise<number> {
  const c = await WireClient.connect(port(id));
  try {
    const fc = await c.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: [groupId] });
    const x = fc.coordinators[0];
    return x.errorCode === 0 ? x.nodeId : -1;
  } finally {
    c.close();
  }
}

/** The committed offset of partition 0 as stored in Redis (-1 if none). */
async function storedOffset(groupId: string): Promise<number> {
  const v = await r.hget(keys.groupOffsets(groupId), `${TOPIC}/0`);
  return v === null ? -1 : (JSON.parse(v) as { offset: number }).offset;
}

/** Samples the stored offset until stopped; every value seen, in order. */
function watchOffset(groupId: string): { stop(): Promise<number[]> } {
  const seen: number[] = [];
  let on = true;
  const loop = (async () => {
    while (on) {
      seen.push(await storedOffset(groupId));
      await sleep(10);
    }
  })();
  return { async stop() { on = false; await loop; return seen; } };
}

interface Member { groupId: string; memberId: string; generation: number }

/** A group id coordinated by broker 1 in both brokers' views, with one member joined and synced at broker 1. */
async function groupOnBroker1(prefix: string): Promise<Member> {
  let groupId = '';
  await waitFor('a group coordinated by broker 1 in both views', async () => {
    for (let i = 0; i < 50; i++) {
      const id = `${prefix}-${i}`;
      if ((await coordinatorSeenBy(1, id)) === 1 && (await coordinatorSeenBy(2, id)) === 1) { groupId = id; return true; }
    }
    return false;
  }, { timeoutMs: 20_000, intervalMs: 200 });
  const c = await WireClient.connect(port(1));
  try {
    const protocols = [{ name: 'range', metadata: Buffer.from([0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]) }];
    const body = { groupId, sessionTimeoutMs: 60_000, rebalanceTimeoutMs: 30_000, groupInstanceId: null, protocolType: 'consumer', protocols, reason: null };
    const first = await c.request(JoinGroup, 9, { ...body, memberId: '' });
    expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    const j = await c.request(JoinGroup, 9, { ...body, memberId: first.memberId });
    expect(j.errorCode).toBe(0);
    const s = await c.request(SyncGroup, 5, { groupId, generationId: j.generationId, memberId: j.memberId, groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [{ memberId: j.memberId, assignment: Buffer.from('p0') }] });
    expect(s.errorCode).toBe(0);
    return { groupId, memberId: j.memberId as string, generation: j.generationId as number };
  } finally {
    c.close();
  }
}

function commitBody(m: Member, offset: number): Record<string, unknown> {
  return { groupId: m.groupId, generationIdOrMemberEpoch: m.generation, memberId: m.memberId, groupInstanceId: null,
    topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: null }] }] };
}

async function commitAt(id: number, m: Member, offset: number): Promise<number> {
  const c = await WireClient.connect(port(id));
  try {
    return (await c.request(OffsetCommit, 8, commitBody(m, offset))).topics[0].partitions[0].errorCode;
  } finally {
    c.close();
  }
}

/** Commits `offsets` in order wherever the group's coordinator is now (retrying NOT_COORDINATOR / COORDINATOR_NOT_AVAILABLE like a client). */
async function commitViaCoordinator(m: Member, offsets: number[], only?: number): Promise<number[]> {
  const used: number[] = [];
  for (const o of offsets) {
    await waitFor(`commit ${o}`, async () => {
      const coord = await coordinatorSeenBy(only ?? 2, m.groupId);
      if (coord < 0 || (only !== undefined && coord !== only)) return false;
      const code = await commitAt(coord, m, o);
      if (code === ErrorCode.NONE) { used.push(coord); return true; }
      if (code === ErrorCode.NOT_COORDINATOR || code === ErrorCode.COORDINATOR_NOT_AVAILABLE) return false;
      throw new Error(`commit ${o} at broker ${coord}: error ${code}`);
    }, { timeoutMs: 20_000, intervalMs: 100 });
  }
  return used;
}

/** Consecutive duplicates removed: the history of the stored offset as sampled. */
const history = (xs: number[]): number[] => xs.filter((x, i) => i === 0 || x !== xs[i - 1]);

const nonDecreasing = (xs: number[]): string[] => xs.flatMap((x, i) => (i > 0 && x < xs[i - 1]! ? [`${xs[i - 1]} -> ${x} at sample ${i}`] : []));

describe.skipIf(onKafka)('coordinator fencing', () => {
  it('a commit held in a network partition reaches Redis after the takeover and is refused: offsets never go back', async () => {
    expect(await wireCreateTopic(port(2), TOPIC, 1)).toBe(0);
    await waitFor('both brokers know the topic', async () => (await Promise.all([1, 2].map(async (id) => {
      const c = await WireClient.connect(port(id));
      try { return (await c.request(OffsetCommit, 8, { ...commitBody({ groupId: 'probe', memberId: '', generation: -1 }, 0) })).topics[0].partitions[0].errorCode !== ErrorCode.UNKNOWN_TOPIC_OR_PARTITION; } finally { c.close(); }
    }))).every(Boolean), { timeoutMs: 10_000 });
    const m = await groupOnBroker1('held');
    expect(await commitAt(1, m, 10)).toBe(ErrorCode.NONE);
    expect(await storedOffset(m.groupId)).toBe(10);

    const watch = watchOffset(m.groupId);
    // Partition broker 1 from Redis, then commit 11 to it: it still holds the slot locally, so its write is sent into the partition.
    link.partition();
    const partitionedAt = Date.now();
    const stale = await WireClient.connect(port(1));
    const staleAnswer = stale.request(OffsetCommit, 8, commitBody(m, 11), 30_000).then((x) => x.topics[0].partitions[0].errorCode as number);

    // Broker 2 takes the slot over after the lease; the member's commits continue there.
    const used = await commitViaCoordinator(m, [20, 21, 22], 2);
    expect(used).toEqual([2, 2, 2]);
    const takeoverMs = Date.now() - partitionedAt;
    expect(await storedOffset(m.groupId)).toBe(22);
    // The slot's coordinator epoch was bumped by the takeover and recorded in the group.
    const epoch = Number(await r.hget(keys.groupMeta(m.groupId), 'coordinatorEpoch'));
    expect(epoch).toBeGreaterThanOrEqual(2);

    link.heal();
    const code = await staleAnswer;
    stale.close();
    await sleep(500);
    const seen = await watch.stop();
    console.log(`[coordinator-fencing] partition: takeover after ${takeoverMs} ms; stale commit answered ${code}; stored offset history ${history(seen).join(' -> ')}`);
    expect(code).toBe(ErrorCode.NOT_COORDINATOR);
    expect(nonDecreasing(seen)).toEqual([]);
    expect(await storedOffset(m.groupId)).toBe(22);

    // Later commits go wherever the coordinator is now (broker 1 may win the slot back) and still land.
    await commitViaCoordinator(m, [23]);
    expect(await storedOffset(m.groupId)).toBe(23);
  });

  it('SIGSTOP with a commit in flight: after SIGCONT the stale coordinator answers NOT_COORDINATOR; offsets never go back', async () => {
    const m = await groupOnBroker1('paused');
    expect(await commitAt(1, m, 100)).toBe(ErrorCode.NONE);
    const watch = watchOffset(m.groupId);
    const b1 = brokers.get(1)!;
    const stale = await WireClient.connect(port(1));
    signal(b1.proc(), 'SIGSTOP');
    const stoppedAt = Date.now();
    let code: number;
    try {
      const staleAnswer = stale.request(OffsetCommit, 8, commitBody(m, 101), 60_000).then((x) => x.topics[0].partitions[0].errorCode as number);
      await commitViaCoordinator(m, [200, 201, 202], 2);
      console.log(`[coordinator-fencing] SIGSTOP: broker 2 took the group over after ${Date.now() - stoppedAt} ms`);
      signal(b1.proc(), 'SIGCONT');
      code = await staleAnswer;
    } finally {
      try { process.kill(b1.proc().pid, 'SIGCONT'); } catch { /* gone */ }
      stale.close();
    }
    await sleep(500);
    const seen = await watch.stop();
    console.log(`[coordinator-fencing] SIGSTOP: stale commit answered ${code}; stored offset history ${history(seen).join(' -> ')}`);
    expect(code).toBe(ErrorCode.NOT_COORDINATOR);
    expect(nonDecreasing(seen)).toEqual([]);
    expect(await storedOffset(m.groupId)).toBe(202);
    await commitViaCoordinator(m, [203]);
    expect(await storedOffset(m.groupId)).toBe(203);
  });

  it('the Redis group store fences every operation by coordinator epoch (Lua over the group\'s own keys)', async () => {
    const prefix = 'fx';
    const fx = new Keys(prefix);
    const conn = new Redis(redis.url);
    try {
      const store = new RedisGroupStore(conn, prefix);
      const id = 'odd {id} 100%';
      const g: StoredGroup = { groupId: id, protocolType: 'consumer', protocolName: 'range', generation: 3, leader: 'm', stateTimestamp: 5,
        members: [{ memberId: 'm', groupInstanceId: null, clientId: 'c', clientHost: '/h', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 20_000, metadata: Buffer.from('md'), assignment: Buffer.from('as') }] };
      const off = (offset: number): Map<string, CommittedOffset> => new Map([['t/0', { offset, leaderEpoch: 1, metadata: 'x', commitTimestamp: 9 }]]);
      await store.saveGroup(g, 5);
      await store.commitOffsets(id, off(7), 5);
      expect(await r.hget(fx.groupMeta(id), 'coordinatorEpoch')).toBe('5');

      // An older coordinator is refused by every operation, and nothing changes.
      const older: Array<[string, () => Promise<unknown>]> = [
        ['load', () => store.load(id, 4)],
        ['saveGroup', () => store.saveGroup({ ...g, generation: 2 }, 4)],
        ['commitOffsets', () => store.commitOffsets(id, off(1), 4)],
        ['deleteOffsets', () => store.deleteOffsets(id, ['t/0'], 4)],
        ['deleteGroup', () => store.deleteGroup(id, 4)],
      ];
      for (const [name, op] of older) await expect(op(), name).rejects.toBeInstanceOf(CoordinatorFencedError);
      let l = await store.load(id, 5);
      expect(l.group).toMatchObject({ generation: 3, leader: 'm', protocolName: 'range' });
      expect(l.offsets.get('t/0')?.offset).toBe(7);

      // A newer coordinator's load claims the group: from then on epoch 5 is refused.
      await store.load(id, 6);
      await expect(store.commitOffsets(id, off(8), 5)).rejects.toBeInstanceOf(CoordinatorFencedError);
      // Absent fields are removed by a save; large commits go through (chunked HSET).
      await store.saveGroup({ ...g, generation: 4, leader: null, protocolName: null }, 6);
      const many = new Map<string, CommittedOffset>(Array.from({ length: 1500 }, (_, i) => [`big/${i}`, { offset: i, leaderEpoch: -1, metadata: '', commitTimestamp: 1 }]));
      await store.commitOffsets(id, many, 6);
      l = await store.load(id, 6);
      expect(l.group).toMatchObject({ generation: 4, leader: null, protocolName: null });
      expect(l.offsets.size).toBe(1501);
      expect(l.offsets.get('big/1499')?.offset).toBe(1499);
      await store.deleteGroup(id, 6);
      expect(await store.listGroupIds()).not.toContain(id);
      expect(await r.exists(fx.groupMeta(id), fx.groupOffsets(id))).toBe(0);

      // Reading a group that does not exist creates nothing.
      l = await store.load('nobody', 1);
      expect(l).toEqual({ group: null, offsets: new Map() });
      expect(await r.exists(fx.groupMeta('nobody'))).toBe(0);
    } finally {
      conn.disconnect();
    }
  });
});
