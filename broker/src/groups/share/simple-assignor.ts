// Kafka's simple assignor for share groups (KIP-932), as its facts are
// documented: each subscribed partition goes to at least one subscribed member
// and partitions are spread evenly. With fewer members than partitions of a
// topic, each partition goes to one member (round robin); with at least as
// many members as partitions, each member gets one partition and several
// members share a partition (a queue read by many consumers).
import type { TopicMeta } from '../consumer/assignors.js';

/** Topic id -> assigned partitions (ascending). */
export type ShareAssignment = Map<string, number[]>;

export function simpleAssign(members: Array<{ memberId: string; subscribedTopicNames: string[] }>, topics: Map<string, TopicMeta>): Map<string, ShareAssignment> {
  const out = new Map<string, ShareAssignment>(members.map((m) => [m.memberId, new Map()]));
  const names = new Set<string>();
  for (const m of members) for (const n of m.subscribedTopicNames) names.add(n);
  for (const name of [...names].sort()) {
    const t = topics.get(name);
    if (!t || t.partitions <= 0) continue;
    const subs = members.filter((m) => m.subscribedTopicNames.includes(name)).map((m) => m.memberId).sort();
    const give = (memberId: string, p: number): void => {
      const a = out.get(memberId)!;
      const ps = a.get(t.id) ?? [];
      ps.push(p);
      a.set(t.id, ps);
    };
    if (subs.length >= t.partitions) subs.forEach((id, i) => give(id, i % t.partitions));
    else for (let p = 0; p < t.partitions; p++) give(subs[p % subs.length]!, p);
  }
  for (const a of out.values()) for (const ps of a.values()) ps.sort((x, y) => x - y);
  return out;
}
