// The "consumer" protocol type of classic groups: what members put in
// JoinGroup metadata (ConsumerProtocolSubscription) and what the leader hands
// out in SyncGroup (ConsumerProtocolAssignment), both version 0 here (newer
// versions only append fields, so their prefix reads the same), and the range
// assignor (Kafka's RangeAssignor): per topic, members sorted by id, each gets
// a contiguous run of partitions, the first (partitions % members) one more.
import { Reader } from '../../broker/src/protocol/reader.js';
import { Writer } from '../../broker/src/protocol/writer.js';

export type Assignment = Map<string, number[]>;

function writeString(w: Writer, s: string): void {
  const n = Buffer.byteLength(s);
  w.int16(n).utf8(s, n);
}

function readString(r: Reader): string {
  const n = r.int16();
  return n < 0 ? '' : r.utf8(n);
}

export function encodeSubscription(topics: readonly string[]): Buffer {
  const w = new Writer(64);
  w.int16(0).int32(topics.length);
  for (const t of topics) writeString(w, t);
  w.int32(-1); // user data: null
  return w.toBuffer();
}

export function decodeSubscription(b: Buffer): string[] {
  const r = new Reader(b);
  r.int16();
  const n = r.int32();
  const topics: string[] = [];
  for (let i = 0; i < n; i++) topics.push(readString(r));
  return topics;
}

export function encodeAssignment(a: Assignment): Buffer {
  const w = new Writer(64);
  w.int16(0).int32(a.size);
  for (const [topic, ps] of a) {
    writeString(w, topic);
    w.int32(ps.length);
    for (const p of ps) w.int32(p);
  }
  w.int32(-1);
  return w.toBuffer();
}

export function decodeAssignment(b: Buffer): Assignment {
  const a: Assignment = new Map();
  if (b.length === 0) return a;
  const r = new Reader(b);
  r.int16();
  const n = r.int32();
  for (let i = 0; i < n; i++) {
    const topic = readString(r);
    const count = r.int32();
    const ps: number[] = [];
    for (let j = 0; j < count; j++) ps.push(r.int32());
    a.set(topic, ps);
  }
  return a;
}

/** RangeAssignor: `members` (id -> subscribed topics), `partitions` (topic -> count). */
export function rangeAssign(members: ReadonlyMap<string, readonly string[]>, partitions: ReadonlyMap<string, number>): Map<string, Assignment> {
  const out = new Map<string, Assignment>([...members.keys()].map((m) => [m, new Map()]));
  const topics = new Set([...members.values()].flat());
  for (const topic of [...topics].sort()) {
    const count = partitions.get(topic);
    if (count === undefined) continue;
    const subs = [...members].filter(([, ts]) => ts.includes(topic)).map(([m]) => m).sort();
    const per = Math.floor(count / subs.length);
    const extra = count % subs.length;
    subs.forEach((m, i) => {
      const start = i * per + Math.min(i, extra);
      const len = per + (i < extra ? 1 : 0);
      if (len > 0) out.get(m)!.set(topic, Array.from({ length: len }, (_, k) => start + k));
    });
  }
  return out;
}
