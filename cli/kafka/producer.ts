// Batching producer for one topic: records go into one open RecordBatch v2
// per partition (written in place by common/record-batch's RecordsWriter),
// sealed when it reaches batchBytes or has lingered lingerMs, compressed, and
// sent with acks=all, one Produce request per leader carrying at most one
// batch per partition (Kafka takes one batch per partition per request).
// A partition has at most one batch in flight, so its records keep their
// order; up to maxInFlight requests per leader run at once. Retriable errors
// (a moved leader, a timeout) refresh the metadata and send the batch again.
import { Produce } from '../../broker/src/protocol/messages/produce.js';
import { RecordsWriter, assembleBatch } from '../../common/record-batch/encode.js';
import { compress } from '../../common/record-batch/compress.js';
import { ErrorCode } from '../../common/errors.js';
import { KafkaResponseError, RETRIABLE } from './errors.js';
import { sleep, type KafkaClient, type TopicInfo } from './client.js';

export interface ProducerOptions {
  codec: number;
  batchBytes: number;
  lingerMs: number;
  timeoutMs: number;
  /** sealed bytes waiting to be sent before add() callers should wait (buffer.memory) */
  bufferBytes: number;
  maxInFlight: number;
  retries: number;
}

interface Open {
  w: RecordsWriter;
  baseTs: number;
  maxTs: number;
  firstAt: number;
}

interface Sealed {
  partition: number;
  batch: Buffer;
  records: number;
  attempts: number;
}

export class Producer {
  private readonly open: Array<Open | null>;
  private readonly queues: Sealed[][];
  private readonly busy: boolean[];
  private readonly inFlight = new Map<number, number>();
  private queuedBytes = 0;
  private timer: NodeJS.Timeout | null = null;
  private flushing = false;
  private failure: Error | null = null;
  private idle: Array<() => void> = [];
  private spare: RecordsWriter[] = [];
  /** records acknowledged by the brokers */
  acked = 0;
  /** where records without a key go: the next partition once its batch is sealed (sticky partitioning) */
  sticky: number;

  constructor(private readonly client: KafkaClient, private topic: TopicInfo, private readonly o: ProducerOptions) {
    const n = topic.partitions.length;
    this.open = new Array<Open | null>(n).fill(null);
    this.queues = Array.from({ length: n }, () => []);
    this.busy = new Array<boolean>(n).fill(false);
    this.sticky = Math.floor(Math.random() * n);
  }

  get partitions(): number {
    return this.topic.partitions.length;
  }

  /** The open batch of `partition`, opened at `ts`. */
  private batch(partition: number, ts: number): Open {
    let b = this.open[partition];
    if (!b) {
      const w = this.spare.pop() ?? new RecordsWriter(Math.min(this.o.batchBytes + 4096, 1 << 20));
      w.reset();
      b = { w, baseTs: ts, maxTs: ts, firstAt: Date.now() };
      this.open[partition] = b;
      if (!this.timer) this.timer = setTimeout(() => { this.timer = null; this.pumpAll(); }, this.o.lingerMs);
    }
    return b;
  }

  /**
   * Appends one record (slices of `src`; start -1 = null) to `partition`.
   * `headers` holds [keyStart, keyEnd, valueStart, valueEnd] per header in `src`,
   * then `extra` headers (the same for every record) follow.
   */
  add(partition: number, ts: number, src: Buffer, keyStart: number, keyEnd: number, valueStart: number, valueEnd: number, headers: readonly number[], extra: readonly [Buffer, Buffer][]): void {
    if (this.failure) throw this.failure;
    // a record that would take the open batch past batchBytes goes into the next one
    let size = 32 + Math.max(0, keyEnd - keyStart) + Math.max(0, valueEnd - valueStart) + this.extraBytes(extra);
    for (let i = 0; i < headers.length; i += 4) size += 10 + headers[i + 1]! - headers[i]! + headers[i + 3]! - headers[i + 2]!;
    const open = this.open[partition];
    if (open && open.w.count > 0 && open.w.pos + size > this.o.batchBytes) {
      this.seal(partition);
      this.pump(this.leader(partition));
    }
    const b = this.batch(partition, ts);
    const w = b.w;
    if (ts > b.maxTs) b.maxTs = ts;
    w.beginRecord(ts - b.baseTs, w.count, keyStart < 0 ? null : src, keyStart, keyEnd - keyStart, valueStart < 0 ? null : src, valueStart, valueEnd - valueStart, extra.length + headers.length / 4);
    for (const [k, v] of extra) {
      w.field(k, 0, k.length);
      w.field(v, 0, v.length);
    }
    for (let i = 0; i < headers.length; i += 4) {
      w.field(src, headers[i]!, headers[i + 1]! - headers[i]!);
      w.field(src, headers[i + 2]!, headers[i + 3]! - headers[i + 2]!);
    }
    w.endRecord();
    if (w.pos >= this.o.batchBytes) {
      this.seal(partition);
      this.pump(this.leader(partition));
    }
  }

  private extraBytes(extra: readonly [Buffer, Buffer][]): number {
    let n = 0;
    for (const [k, v] of extra) n += 10 + k.length + v.length;
    return n;
  }

  private seal(partition: number): void {
    const b = this.open[partition];
    if (!b) return;
    this.open[partition] = null;
    if (partition === this.sticky) this.sticky = (this.sticky + 1) % this.open.length;
    const payload = compress(this.o.codec, b.w.view());
    const batch = assembleBatch({
      baseOffset: 0, lastOffsetDelta: b.w.count - 1, baseTimestamp: b.baseTs, maxTimestamp: b.maxTs,
      recordCount: b.w.count, attributes: this.o.codec, partitionLeaderEpoch: -1, producerId: -1n, producerEpoch: -1, baseSequence: -1,
    }, payload);
    this.queues[partition]!.push({ partition, batch, records: b.w.count, attempts: 0 });
    this.queuedBytes += batch.length;
    this.spare.push(b.w);
  }

  private leader(partition: number): number {
    return this.topic.partitions[partition]!.leader;
  }

  private pumpAll(): void {
    const nodes = new Set(this.topic.partitions.map((p) => p.leader));
    for (const n of nodes) this.pump(n);
  }

  /** Sends what is ready for `node`: the head batch of each idle partition it leads (an open batch that lingered long enough is sealed). */
  private pump(node: number): void {
    if (this.failure) return;
    const now = Date.now();
    while ((this.inFlight.get(node) ?? 0) < this.o.maxInFlight) {
      const take: Sealed[] = [];
      for (const p of this.topic.partitions) {
        if (p.leader !== node || this.busy[p.partition]) continue;
        const open = this.open[p.partition];
        if (this.queues[p.partition]!.length === 0 && open && (this.flushing || now - open.firstAt >= this.o.lingerMs)) this.seal(p.partition);
        const s = this.queues[p.partition]!.shift();
        if (!s) continue;
        this.queuedBytes -= s.batch.length;
        this.busy[p.partition] = true;
        take.push(s);
      }
      if (take.length === 0) break;
      this.inFlight.set(node, (this.inFlight.get(node) ?? 0) + 1);
      void this.send(node, take).finally(() => {
        this.inFlight.set(node, (this.inFlight.get(node) ?? 1) - 1);
        this.pump(node);
        this.notify();
      });
    }
    if (!this.timer && !this.failure && this.open.some((b) => b !== null)) this.timer = setTimeout(() => { this.timer = null; this.pumpAll(); }, this.o.lingerMs);
  }

  private async send(node: number, batches: Sealed[]): Promise<void> {
    let retry: Sealed[] = [];
    try {
      const conn = await this.client.broker(node);
      const r = await conn.request(Produce, {
        transactionalId: null, acks: -1, timeoutMs: this.o.timeoutMs,
        topicData: [{ name: this.topic.name, partitionData: batches.map((b) => ({ index: b.partition, records: b.batch })) }],
      });
      const byPartition = new Map<number, { errorCode: number; errorMessage: string | null }>();
      for (const t of r.responses) for (const p of t.partitionResponses) byPartition.set(p.index, p);
      for (const b of batches) {
        const p = byPartition.get(b.partition);
        const code = p ? p.errorCode : ErrorCode.UNKNOWN_SERVER_ERROR;
        if (code === ErrorCode.NONE) this.acked += b.records;
        else if (RETRIABLE.has(code) && b.attempts < this.o.retries) retry.push(b);
        else this.fail(new KafkaResponseError(code, `produce to ${this.topic.name}-${b.partition}`, p?.errorMessage));
      }
    } catch (e) {
      if (e instanceof KafkaResponseError) this.fail(e);
      else if (batches.every((b) => b.attempts < this.o.retries)) retry = batches;
      else this.fail(e as Error);
    }
    if (retry.length > 0) {
      await sleep(100 * Math.min(10, 1 + Math.max(...retry.map((b) => b.attempts))));
      try {
        this.topic = await this.client.topic(this.topic.name);
      } catch (e) {
        this.fail(e as Error);
      }
      for (const b of retry) {
        b.attempts++;
        this.queues[b.partition]!.unshift(b);
        this.queuedBytes += b.batch.length;
      }
    }
    for (const b of batches) this.busy[b.partition] = false;
    if (retry.length > 0) this.pumpAll();
  }

  private fail(e: Error): void {
    if (!this.failure) this.failure = e;
    this.notify();
  }

  private notify(): void {
    for (const f of this.idle.splice(0)) f();
  }

  private drained(): boolean {
    return this.queues.every((q) => q.length === 0) && this.open.every((b) => b === null) && [...this.inFlight.values()].every((n) => n === 0);
  }

  /** Resolves once fewer than bufferBytes wait to be sent (the input's back-pressure). */
  async room(): Promise<void> {
    while (!this.failure && this.queuedBytes >= this.o.bufferBytes) await new Promise<void>((r) => this.idle.push(r));
    if (this.failure) throw this.failure;
  }

  /** Stops: nothing more is sent, no timer keeps the process alive. */
  abort(e: Error): void {
    this.fail(e);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Sends everything and waits for every acknowledgement; rejects with the first failure. */
  async flush(): Promise<void> {
    this.flushing = true;
    this.pumpAll();
    while (!this.failure && !this.drained()) {
      await new Promise<void>((r) => this.idle.push(r));
      this.pumpAll();
    }
    this.flushing = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.failure) throw this.failure;
  }
}
