// The server-side assignors of consumer-protocol groups (KIP-848), chosen
// with group.consumer.assignors (first one is the default) or per member with
// ServerAssignor (the client's group.remote.assignor). Both map each member's
// resolved subscription to a target assignment; the coordinator then
// reconciles members towards it (reconcile.ts).
//   uniform: balanced (member counts differ by at most one among members
//            eligible for the same partitions) and sticky: a partition stays
//            with its current target owner unless balance requires a move.
//   range:   per topic, the partitions in contiguous ranges over the members
//            subscribed to it, in member-id order (the first partitions % members
//            members get one more), as the classic RangeAssignor does.
import type { Partitions } from './partitions.js';

export interface TopicMeta { name: string; id: string; partitions: number }

export interface AssignorMember {
  memberId: string;
  /** Resolved subscription: topic ids. */
  topics: Set<string>;
  /** The member's current target assignment (stickiness). */
  current: Partitions;
}

export interface Assignor {
  name: string;
  /** Target assignment of every member (members without partitions map to an empty Partitions). */
  assign(members: AssignorMember[], topics: Map<string, TopicMeta>): Map<string, Partitions>;
}

const byName = (a: TopicMeta, b: TopicMeta): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const byId = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function emptyResult(members: AssignorMember[]): Map<string, Partitions> {
  return new Map(members.map((m) => [m.memberId, new Map()]));
}

function add(p: Partitions, topicId: string, partition: number): void {
  let s = p.get(topicId);
  if (!s) p.set(topicId, (s = new Set()));
  s.add(partition);
}

export const uniformAssignor: Assignor = {
  name: 'uniform',
  assign(members, topics) {
    const ids = members.map((m) => m.memberId).sort(byId);
    const byMember = new Map(members.map((m) => [m.memberId, m]));
    const owner = new Map<string, string>(); // `${topicId}:${p}` -> member
    const owned = new Map<string, string[]>(ids.map((id) => [id, []]));
    const eligible = new Map<string, string[]>(); // topic id -> member ids
    const all: Array<{ topicId: string; partition: number; key: string }> = [];
    for (const t of [...topics.values()].sort(byName)) {
      const e = ids.filter((id) => byMember.get(id)!.topics.has(t.id));
      if (e.length === 0) continue;
      eligible.set(t.id, e);
      for (let p = 0; p < t.partitions; p++) all.push({ topicId: t.id, partition: p, key: `${t.id}:${p}` });
    }
    const give = (key: string, id: string): void => {
      owner.set(key, id);
      owned.get(id)!.push(key);
    };
    // 1. Stickiness: a partition stays with its current owner while that member still subscribes to it.
    for (const { topicId, partition, key } of all) {
      for (const id of eligible.get(topicId)!) {
        if (byMember.get(id)!.current.get(topicId)?.has(partition)) {
          give(key, id);
          break;
        }
      }
    }
    // 2. Unowned partitions go to the least-loaded eligible member.
    const load = (id: string): number => owned.get(id)!.length;
    for (const { topicId, key } of all) {
      if (owner.has(key)) continue;
      const e = eligible.get(topicId)!;
      give(key, e.reduce((best, id) => (load(id) < load(best) ? id : best), e[0]!));
    }
    // 3. Balance: move partitions from a member to an eligible one with at least two fewer,
    //    until none can move (each move lowers the sum of squared loads, so this ends).
    const topicOf = (key: string): string => key.slice(0, key.lastIndexOf(':'));
    for (let moved = true; moved;) {
      moved = false;
      for (const id of [...ids].sort((a, b) => load(b) - load(a))) {
        const mine = owned.get(id)!;
        for (let i = mine.length - 1; i >= 0; i--) {
          const key = mine[i]!;
          const e = eligible.get(topicOf(key))!;
          const to = e.reduce((best, x) => (load(x) < load(best) ? x : best), e[0]!);
          if (load(id) - load(to) > 1) {
            mine.splice(i, 1);
            give(key, to);
            moved = true;
          }
        }
      }
    }
    const out = emptyResult(members);
    for (const [key, id] of owner) {
      const i = key.lastIndexOf(':');
      add(out.get(id)!, key.slice(0, i), Number(key.slice(i + 1)));
    }
    return out;
  },
};

export const rangeAssignor: Assignor = {
  name: 'range',
  assign(members, topics) {
    const out = emptyResult(members);
    const ids = members.map((m) => m.memberId).sort(byId);
    const byMember = new Map(members.map((m) => [m.memberId, m]));
    for (const t of topics.values()) {
      const e = ids.filter((id) => byMember.get(id)!.topics.has(t.id));
      if (e.length === 0) continue;
      const per = Math.floor(t.partitions / e.length);
      const extra = t.partitions % e.length;
      let next = 0;
      e.forEach((id, i) => {
        const n = per + (i < extra ? 1 : 0);
        for (let k = 0; k < n; k++) add(out.get(id)!, t.id, next++);
      });
    }
    return out;
  },
};

export const ASSIGNORS: ReadonlyMap<string, Assignor> = new Map([uniformAssignor, rangeAssignor].map((a) => [a.name, a]));

