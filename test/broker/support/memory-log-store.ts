// In-memory LogStore for fast unit tests of handlers and partition logic.
// Never the proof that a feature works: integration tests use real Redis.
import { RunnelError } from '../../../common/errors.js';
import type { AbortedTxn, AppendRequest, AppendResult, CompactedBatch, CompactionStore, LogStore, PartitionTail, StoredBatch, TopicPartition, TopicRecord } from '../../../broker/src/storage/log-store.js';

interface PartitionData {
  batches: StoredBatch[]; logStartOffset: number; leaderEpoch: number; archived: number; next: number | null; producers: Map<number, string>; txns: Map<number, number>; aborted: AbortedTxn[];
  /** Compaction as the Redis store keeps it: the compacted prefix (below cleanedTo), the pass being written, its token. */
  compacted: CompactedBatch[]; cleanedTo: number; remoteLogStart: number | null; pass: { token: string; batches: CompactedBatch[] } | null;
}

export class MemoryLogStore implements LogStore {
  topics = new Map<string, TopicRecord>();
  parts = new Map<string, PartitionData>();
  private pid = 0;
  failing = false;

  private part(tp: TopicPartition): PartitionData {
    const k = `${tp.topic}/${tp.partition}`;
    let p = this.parts.get(k);
    if (!p) this.parts.set(k, (p = { batches: [], logStartOffset: 0, leaderEpoch: 0, archived: -1, next: null, producers: new Map(), txns: new Map(), aborted: [], compacted: [], cleanedTo: 0, remoteLogStart: null, pass: null }));
    return p;
  }
  private check(): void { if (this.failing) throw new RunnelError('STORAGE_UNAVAILABLE', 'store down'); }

  async listTopics() { this.check(); return [...this.topics.values()]; }
  async getTopic(name: string) { this.check(); return this.topics.get(name) ?? null; }
  async createTopic(t: TopicRecord) { this.check(); if (this.topics.has(t.name)) return null; this.topics.set(t.name, t); return t; }
  async createTopics(ts: TopicRecord[]) { return Promise.all(ts.map((t) => this.createTopic(t))); }
  async updateTopic(t: TopicRecord) { this.topics.set(t.name, t); return t; }
  async deleteTopic(t: TopicRecord) {
    this.topics.delete(t.name);
    for (let i = 0; i < t.partitions; i++) this.parts.delete(`${t.name}/${i}`);
  }
  async tail(tp: TopicPartition): Promise<PartitionTail> {
    this.check();
    const p = this.part(tp);
    return { last: p.batches[p.batches.length - 1] ?? p.compacted[p.compacted.length - 1] ?? null, nextOffset: p.next, logStartOffset: p.logStartOffset, leaderEpoch: p.leaderEpoch, archivedOffset: p.archived, cleanedTo: p.cleanedTo, remoteLogStartOffset: p.remoteLogStart };
  }
  /** Same fence as append.lua: current epoch and base offset == stored log end. */
  async append(tp: TopicPartition, req: AppendRequest): Promise<AppendResult> {
    this.check();
    const p = this.part(tp);
    const last = p.batches[p.batches.length - 1];
    const next = p.next ?? (last ? last.baseOffset + last.bytes.readInt32BE(23) + 1 : p.logStartOffset);
    if (req.epoch !== p.leaderEpoch) return { fenced: `FENCED epoch ${p.leaderEpoch}` };
    if (req.baseOffset !== next) return { fenced: `FENCED offset ${next}` };
    p.batches.push({ baseOffset: req.baseOffset, bytes: Buffer.from(req.batch) });
    p.next = req.nextOffset;
    if (req.producer) p.producers.set(req.producer.id, req.producer.state);
    // Same transaction indexes as append-fence.lua.
    if (req.producer && req.txn?.kind === 'begin') p.txns.set(req.producer.id, req.txn.firstOffset);
    if (req.producer && req.txn?.kind === 'end') {
      p.txns.delete(req.producer.id);
      if (req.txn.aborted) p.aborted.push(req.txn.aborted);
    }
    return 'ok';
  }
  async restoreLeaderEpoch(tp: TopicPartition, epoch: number) { this.check(); const p = this.part(tp); if (p.leaderEpoch < epoch) p.leaderEpoch = epoch; return p.leaderEpoch; }
  async producerStates(tp: TopicPartition) { this.check(); return new Map(this.part(tp).producers); }
  async expireProducers(tp: TopicPartition, epoch: number, cutoffMs: number, ids: number[]) {
    const p = this.part(tp);
    if (epoch !== p.leaderEpoch) return 0;
    let n = 0;
    for (const id of ids) {
      const s = p.producers.get(id);
      if (s !== undefined && Number(s.split(' ')[0]) < cutoffMs) { p.producers.delete(id); n++; }
    }
    return n;
  }
  /** The compacted prefix, then the uncompacted log (readers see one log, as with the Redis store). */
  private all(tp: TopicPartition): StoredBatch[] {
    const p = this.part(tp);
    return p.compacted.length ? [...p.compacted.map(({ baseOffset, bytes }) => ({ baseOffset, bytes })), ...p.batches] : p.batches;
  }
  /** The batch of `bs` containing `offset` (or the last one before it) and the following ones, at most `count`. */
  private static from(bs: StoredBatch[], offset: number, count: number): StoredBatch[] {
    let i = bs.findIndex((b) => b.baseOffset > offset);
    if (i === -1) i = bs.length;
    const start = Math.max(0, i - 1);
    return bs.slice(start, start + count);
  }
  /** As log-reads.ts: the log, unless the offset lies below it; then the compacted prefix. A read never mixes the two. */
  async read(tp: TopicPartition, offset: number, count: number) {
    const p = this.part(tp);
    const log = MemoryLogStore.from(p.batches, offset, count);
    if (log.length > 0 && log[0]!.baseOffset <= offset) return log;
    const compacted = MemoryLogStore.from(p.compacted, offset, count).map(({ baseOffset, bytes }) => ({ baseOffset, bytes }));
    return compacted.some((b) => b.baseOffset + b.bytes.readInt32BE(23) >= offset) ? compacted : log;
  }
  async readBackwards(tp: TopicPartition, beforeOrAt: number, count: number) {
    return this.all(tp).filter((b) => b.baseOffset <= beforeOrAt).reverse().slice(0, count);
  }
  /** The archiver's watermark (the archiver writes it in Redis; no broker API does). */
  setArchived(tp: TopicPartition, offset: number): void {
    this.part(tp).archived = offset;
  }
  async setRemoteLogStartOffset(tp: TopicPartition, o: number | null) {
    this.part(tp).remoteLogStart = o;
  }
  async setLogStartOffset(tp: TopicPartition, o: number) {
    const p = this.part(tp);
    p.logStartOffset = o;
    p.aborted = p.aborted.filter((a) => a.lastOffset >= o);
  }
  async abortedTxns(tp: TopicPartition, from: number, limit: number) {
    return this.part(tp).aborted.filter((a) => a.lastOffset >= from).sort((a, b) => a.lastOffset - b.lastOffset).slice(0, limit);
  }
  async lastAbortedOffset(tp: TopicPartition) { return this.part(tp).aborted.reduce((m, a) => Math.max(m, a.lastOffset), -1); }
  /** Both streams, as the Redis store's two XTRIMs. */
  async trimBefore(tp: TopicPartition, min: number) {
    const p = this.part(tp);
    const before = p.batches.length + p.compacted.length;
    p.batches = p.batches.filter((b) => b.baseOffset >= min);
    p.compacted = p.compacted.filter((b) => b.baseOffset >= min);
    return before - p.batches.length - p.compacted.length;
  }
  async sizeBytes(tp: TopicPartition) { return this.all(tp).reduce((n, b) => n + b.bytes.length, 0); }

  /** Same fences as compact-{begin,write,finish}.lua: the leader epoch, and the token of the newest pass. */
  readonly compaction: CompactionStore = {
    scanLog: async (tp, fromBase, count) => this.part(tp).batches.filter((b) => b.baseOffset >= fromBase).slice(0, count),
    scanCompacted: async (tp, fromBase, count) => this.part(tp).compacted.filter((b) => b.baseOffset >= fromBase).slice(0, count),
    begin: async (tp, epoch, token) => {
      const p = this.part(tp);
      if (epoch !== p.leaderEpoch) return false;
      p.pass = { token, batches: [] };
      return true;
    },
    write: async (tp, token, batches) => {
      const p = this.part(tp);
      if (p.pass?.token !== token) return false;
      p.pass.batches.push(...batches.map((b) => ({ ...b, bytes: Buffer.from(b.bytes) })));
      return true;
    },
    finish: async (tp, epoch, token, cleanedTo) => {
      const p = this.part(tp);
      if (epoch !== p.leaderEpoch || p.pass?.token !== token) return false;
      p.compacted = p.pass.batches.filter((b) => b.baseOffset >= p.logStartOffset || b.baseOffset + b.bytes.readInt32BE(23) >= p.logStartOffset);
      p.batches = p.batches.filter((b) => b.baseOffset >= cleanedTo);
      p.cleanedTo = cleanedTo;
      p.pass = null;
      return true;
    },
    sizes: async (tp) => {
      const p = this.part(tp);
      const sum = (bs: StoredBatch[]) => bs.reduce((n, b) => n + b.bytes.length, 0);
      return { log: sum(p.batches), compacted: sum(p.compacted) };
    },
  };
  async nextProducerId() { return ++this.pid; }
  async clusterId() { return 'memory-cluster'; }
  async waitReplicas() { return { replicas: 0, aofLocal: false }; }
  async connectedReplicas() { return 0; }
  async close() {}
}
