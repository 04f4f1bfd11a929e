// Consumer lag of a group as stored: per partition with a committed offset or
// an assigned member, the log end minus the committed offset (what
// kafka-consumer-groups --describe prints as LAG). Read by `runnel status` and
// the web console; computed from what the store returns, no I/O here.
import { assignedPartitions } from './consumer-protocol.js';
import { parseOffsetKey, type LoadedGroup } from './group-store.js';

export interface MemberView {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  /** Assigned partitions per topic; null when the assignment is not the consumer protocol's (or empty). */
  assignment: Array<{ topic: string; partitions: number[] }> | null;
}

export interface PartitionLag {
  topic: string;
  partition: number;
  /** Committed offset, null when the partition is assigned but nothing was committed. */
  committedOffset: number | null;
  /** Log end offset of the partition, null when the topic is unknown (deleted). */
  logEndOffset: number | null;
  /** logEndOffset - committedOffset (never below 0), null when either is unknown. */
  lag: number | null;
  /** Client id of the member the partition is assigned to, null when none. */
  clientId: string | null;
}

export interface GroupLag {
  groupId: string;
  /** As stored: Stable with members, Empty without (the coordinator's live state may be a rebalance in progress). */
  state: string;
  protocolType: string;
  protocolName: string;
  generation: number;
  members: MemberView[];
  partitions: PartitionLag[];
  /** Sum of the known per-partition lags. */
  totalLag: number;
}

export type LogEndOf = (topic: string, partition: number) => number | null;

export function groupLag(groupId: string, loaded: LoadedGroup, logEndOf: LogEndOf): GroupLag {
  const g = loaded.group;
  // A consumer-protocol group (KIP-848) keeps its members apart; their assignments name topic ids, not shown here.
  const members: MemberView[] = g?.consumer
    ? g.consumer.members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.instanceId, clientId: m.clientId, clientHost: m.clientHost, assignment: null }))
    : (g?.members ?? []).map((m) => ({
      memberId: m.memberId, groupInstanceId: m.groupInstanceId, clientId: m.clientId, clientHost: m.clientHost,
      assignment: m.assignment.length ? assignedPartitions(m.assignment) : null,
    }));
  const owner = new Map<string, string>();
  for (const m of members) for (const a of m.assignment ?? []) for (const p of a.partitions) owner.set(`${a.topic}/${p}`, m.clientId);
  const keys = new Set<string>([...loaded.offsets.keys(), ...owner.keys()]);
  const partitions: PartitionLag[] = [...keys].map((k) => {
    const { topic, partition } = parseOffsetKey(k);
    const committedOffset = loaded.offsets.get(k)?.offset ?? null;
    const logEndOffset = logEndOf(topic, partition);
    const lag = committedOffset === null || logEndOffset === null ? null : Math.max(0, logEndOffset - committedOffset);
    return { topic, partition, committedOffset, logEndOffset, lag, clientId: owner.get(k) ?? null };
  }).sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
  return {
    groupId,
    state: members.length > 0 ? 'Stable' : 'Empty',
    protocolType: g?.consumer ? 'consumer' : g?.protocolType ?? '',
    protocolName: g?.protocolName ?? '',
    generation: g?.generation ?? 0,
    members,
    partitions,
    totalLag: partitions.reduce((s, p) => s + (p.lag ?? 0), 0),
  };
}
