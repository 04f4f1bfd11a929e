// A member of a classic consumer group (protocol type "consumer", the range
// assignor): JoinGroup (again with the member id a broker asks for,
// MEMBER_ID_REQUIRED), SyncGroup (the leader computes every assignment),
// Heartbeat on its own connection (a rebalance or a lost membership raises
// `rebalance`), OffsetFetch/OffsetCommit of positions, LeaveGroup at the end.
import { JoinGroup } from '../../broker/src/protocol/messages/join-group.js';
import { SyncGroup } from '../../broker/src/protocol/messages/sync-group.js';
import { Heartbeat } from '../../broker/src/protocol/messages/heartbeat.js';
import { LeaveGroup } from '../../broker/src/protocol/messages/leave-group.js';
import { OffsetCommit } from '../../broker/src/protocol/messages/offset-commit.js';
import { OffsetFetch } from '../../broker/src/protocol/messages/offset-fetch.js';
import { ErrorCode } from '../../common/errors.js';
import { check, RETRIABLE } from './errors.js';
import { sleep, type KafkaClient } from './client.js';
import { decodeAssignment, decodeSubscription, encodeAssignment, encodeSubscription, rangeAssign, type Assignment } from './consumer-protocol.js';

export interface MemberOptions {
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  heartbeatIntervalMs: number;
}

const REJOIN: ReadonlySet<number> = new Set([ErrorCode.REBALANCE_IN_PROGRESS, ErrorCode.ILLEGAL_GENERATION, ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.FENCED_INSTANCE_ID]);

export class GroupMember {
  memberId = '';
  generation = -1;
  /** set when the group rebalances or this member lost its place: stop, commit, join again */
  rebalance = false;
  onRebalance: () => void = () => undefined;
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(private readonly client: KafkaClient, readonly groupId: string, private readonly topics: readonly string[], private readonly o: MemberOptions) {}

  /** Joins (or re-joins) the group; resolves with this member's assignment. */
  async join(): Promise<Assignment> {
    this.stopHeartbeat();
    for (let attempt = 0; ; attempt++) {
      const conn = await this.client.coordinator(this.groupId);
      const j = await conn.request(JoinGroup, {
        groupId: this.groupId, sessionTimeoutMs: this.o.sessionTimeoutMs, rebalanceTimeoutMs: this.o.rebalanceTimeoutMs, memberId: this.memberId,
        groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'range', metadata: encodeSubscription(this.topics) }], reason: null,
      });
      if (j.errorCode === ErrorCode.MEMBER_ID_REQUIRED) { this.memberId = j.memberId; continue; }
      if (j.errorCode === ErrorCode.UNKNOWN_MEMBER_ID) { this.memberId = ''; continue; }
      if ((RETRIABLE.has(j.errorCode) || j.errorCode === ErrorCode.REBALANCE_IN_PROGRESS) && attempt < 50) { await sleep(200); continue; }
      check(j.errorCode, `JoinGroup ${this.groupId}`);
      this.memberId = j.memberId;
      this.generation = j.generationId;
      const assignments = j.leader === j.memberId ? await this.assign(j.members.map((m) => [m.memberId, decodeSubscription(m.metadata)])) : [];
      const s = await conn.request(SyncGroup, {
        groupId: this.groupId, generationId: this.generation, memberId: this.memberId, groupInstanceId: null,
        protocolType: 'consumer', protocolName: 'range', assignments,
      });
      if (REJOIN.has(s.errorCode) || RETRIABLE.has(s.errorCode)) {
        if (s.errorCode === ErrorCode.UNKNOWN_MEMBER_ID) this.memberId = '';
        continue;
      }
      check(s.errorCode, `SyncGroup ${this.groupId}`);
      this.rebalance = false;
      this.startHeartbeat();
      return decodeAssignment(s.assignment);
    }
  }

  private async assign(members: Array<[string, string[]]>): Promise<Array<{ memberId: string; assignment: Buffer }>> {
    const topics = [...new Set(members.flatMap(([, ts]) => ts))];
    const md = await this.client.metadata(topics);
    const counts = new Map(md.topics.filter((t) => t.errorCode === ErrorCode.NONE).map((t) => [t.name, t.partitions.length]));
    const plan = rangeAssign(new Map(members), counts);
    return [...plan].map(([memberId, a]) => ({ memberId, assignment: encodeAssignment(a) }));
  }

  private startHeartbeat(): void {
    const beat = async (): Promise<void> => {
      try {
        const conn = await this.client.coordinator(this.groupId, 'heartbeat');
        const r = await conn.request(Heartbeat, { groupId: this.groupId, generationId: this.generation, memberId: this.memberId, groupInstanceId: null });
        if (REJOIN.has(r.errorCode)) {
          if (r.errorCode === ErrorCode.UNKNOWN_MEMBER_ID) this.memberId = '';
          this.rebalance = true;
          this.stopHeartbeat();
          this.onRebalance();
        }
      } catch {
        // a missed beat; the session timeout allows a few
      }
    };
    this.heartbeat = setInterval(() => void beat(), this.o.heartbeatIntervalMs);
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  /** Committed offsets of `topic`'s `partitions` (-1 where none). */
  async committed(topic: string, partitions: number[]): Promise<Map<number, number>> {
    return fetchCommitted(this.client, this.groupId, topic, partitions);
  }

  /** Commits `positions` (partition -> next offset) of `topic` in this generation; a rebalance in between leaves them uncommitted. */
  async commit(topic: string, positions: ReadonlyMap<number, number>): Promise<void> {
    if (positions.size === 0) return;
    const conn = await this.client.coordinator(this.groupId);
    const r = await conn.request(OffsetCommit, {
      groupId: this.groupId, generationIdOrMemberEpoch: this.generation, memberId: this.memberId, groupInstanceId: null,
      topics: [{ name: topic, partitions: [...positions].map(([p, o]) => ({ partitionIndex: p, committedOffset: o, committedLeaderEpoch: -1, committedMetadata: '' })) }],
    });
    for (const t of r.topics) for (const p of t.partitions) {
      if (REJOIN.has(p.errorCode)) { this.rebalance = true; continue; }
      check(p.errorCode, `OffsetCommit ${this.groupId} ${t.name}-${p.partitionIndex}`);
    }
  }

  async leave(): Promise<void> {
    this.stopHeartbeat();
    if (!this.memberId) return;
    const conn = await this.client.coordinator(this.groupId);
    const r = await conn.request(LeaveGroup, { groupId: this.groupId, memberId: this.memberId, members: [{ memberId: this.memberId, groupInstanceId: null, reason: 'the console consumer stopped' }] });
    if (r.errorCode !== ErrorCode.UNKNOWN_MEMBER_ID) check(r.errorCode, `LeaveGroup ${this.groupId}`);
    this.memberId = '';
  }
}

/** OffsetFetch of one group: committed offsets per topic and partition (null topics: all the group has). */
export async function fetchCommittedAll(client: KafkaClient, groupId: string, topics: Array<{ name: string; partitions: number[] }> | null): Promise<Map<string, Map<number, number>>> {
  const conn = await client.coordinator(groupId);
  const r = await conn.request(OffsetFetch, (v) => (v >= 8
    ? { groups: [{ groupId, topics: topics?.map((t) => ({ name: t.name, partitionIndexes: t.partitions })) ?? null }], requireStable: false }
    : { groupId, topics: topics?.map((t) => ({ name: t.name, partitionIndexes: t.partitions })) ?? null, groups: [], requireStable: false }));
  const out = new Map<string, Map<number, number>>();
  const add = (topic: string, p: { partitionIndex: number; committedOffset: number; errorCode: number }): void => {
    check(p.errorCode, `OffsetFetch ${groupId} ${topic}-${p.partitionIndex}`);
    if (!out.has(topic)) out.set(topic, new Map());
    out.get(topic)!.set(p.partitionIndex, p.committedOffset);
  };
  if (r.groups.length > 0) {
    const g = r.groups[0]!;
    check(g.errorCode, `OffsetFetch ${groupId}`);
    for (const t of g.topics) for (const p of t.partitions) add(t.name, p);
  } else {
    check(r.errorCode, `OffsetFetch ${groupId}`);
    for (const t of r.topics) for (const p of t.partitions) add(t.name, p);
  }
  return out;
}

export async function fetchCommitted(client: KafkaClient, groupId: string, topic: string, partitions: number[]): Promise<Map<number, number>> {
  const all = await fetchCommittedAll(client, groupId, [{ name: topic, partitions }]);
  return all.get(topic) ?? new Map(partitions.map((p) => [p, -1]));
}

