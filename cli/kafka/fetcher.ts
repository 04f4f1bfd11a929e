// Reads partitions of one topic from their leaders: a Fetch loop per leader
// (full fetches, no fetch session), record batches decoded with
// common/record-batch and handed over one record at a time, positions kept
// per partition (the next offset to read; what a group commits). ListOffsets
// resolves earliest/latest; OFFSET_OUT_OF_RANGE resets by the policy, a moved
// leader refreshes the metadata.
import { Fetch } from '../../broker/src/protocol/messages/fetch.js';
import { ListOffsets } from '../../broker/src/protocol/messages/list-offsets.js';
import { decodeBatch } from '../../common/record-batch/decode.js';
import { readInt64 } from '../../common/record-batch/header.js';
import { At, LOG_OVERHEAD } from '../../common/record-batch/layout.js';
import type { RecordSink } from '../../common/record-batch/records.js';
import { ErrorCode } from '../../common/errors.js';
import { check, KafkaResponseError, RETRIABLE } from './errors.js';
import { KafkaClient, sleep, type TopicInfo } from './client.js';
import type { RecordView } from './format.js';

/** connection failures in a row before a fetch gives up */
const MAX_RECONNECTS = 10;

export const EARLIEST = -2;
export const LATEST = -1;

export interface FetchOptions {
  maxWaitMs: number;
  partitionMaxBytes: number;
  maxBytes: number;
  /** 0 read_uncommitted, 1 read_committed */
  isolationLevel: number;
  /** where to go after OFFSET_OUT_OF_RANGE */
  reset: typeof EARLIEST | typeof LATEST;
}

/** Offsets of `partitions` at `timestamp` (EARLIEST, LATEST or ms), asked of their leaders. */
export async function listOffsets(client: KafkaClient, topic: TopicInfo, partitions: number[], timestamp: number, isolationLevel = 0): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  await Promise.all([...KafkaClient.byLeader(topic, partitions)].map(async ([node, ps]) => {
    const conn = await client.broker(node);
    const r = await conn.request(ListOffsets, {
      replicaId: -1, isolationLevel, timeoutMs: client.cfg.timeoutMs,
      topics: [{ name: topic.name, partitions: ps.map((p) => ({ partitionIndex: p, currentLeaderEpoch: -1, timestamp })) }],
    });
    for (const t of r.topics) for (const p of t.partitions) {
      check(p.errorCode, `ListOffsets ${topic.name}-${p.partitionIndex}`);
      out.set(p.partitionIndex, p.offset);
    }
  }));
  return out;
}

/** Collects a record's headers before handing it over (the sink gets the record, then its headers). */
class Collector implements RecordSink {
  private view: RecordView | null = null;
  private want = 0;
  partition = 0;

  constructor(private readonly topic: string, private readonly deliver: (r: RecordView) => void) {}

  record(offset: number, timestamp: number, timestampType: 0 | 1, buf: Buffer, keyStart: number, keyLen: number, valueStart: number, valueLen: number, headerCount: number): void {
    this.view = { topic: this.topic, partition: this.partition, offset, timestamp, timestampType, buf, keyStart, keyLen, valueStart, valueLen, headers: [] };
    this.want = headerCount;
    if (headerCount === 0) this.emit();
  }

  header(_buf: Buffer, keyStart: number, keyLen: number, valueStart: number, valueLen: number): void {
    const v = this.view!;
    v.headers.push(keyStart, keyLen, valueStart, valueLen);
    if (v.headers.length === this.want * 4) this.emit();
  }

  private emit(): void {
    const v = this.view!;
    this.view = null;
    this.deliver(v);
  }
}

export class Fetcher {
  private stopped = false;
  /** bumped when a leader moved: every leader loop ends, the metadata is refreshed */
  private generation = 0;

  /** `positions`: the next offset per partition (EARLIEST/LATEST resolved by start()). */
  constructor(private readonly client: KafkaClient, private topic: TopicInfo, readonly positions: Map<number, number>, private readonly o: FetchOptions) {}

  /** Resolves EARLIEST/LATEST positions to offsets. */
  async resolve(): Promise<void> {
    for (const ts of [EARLIEST, LATEST]) {
      const ps = [...this.positions].filter(([, off]) => off === ts).map(([p]) => p);
      if (ps.length === 0) continue;
      for (const [p, off] of await listOffsets(this.client, this.topic, ps, ts, this.o.isolationLevel)) this.positions.set(p, off);
    }
  }

  stop(): void {
    this.stopped = true;
  }

  /**
   * Fetches until stop(): every record at or past its partition's position
   * goes to `deliver` (which may call stop(); no record is delivered after);
   * `afterResponse` runs after each response's records (write them out there).
   */
  async run(deliver: (r: RecordView) => void, afterResponse: () => Promise<void>): Promise<void> {
    await this.resolve();
    const sink = new Collector(this.topic.name, (r) => {
      if (this.stopped) return;
      this.positions.set(r.partition, r.offset + 1);
      deliver(r);
    });
    let failures = 0;
    while (!this.stopped) {
      const gen = this.generation;
      const leaders = KafkaClient.byLeader(this.topic, [...this.positions.keys()]);
      // a failing loop ends the others (a new generation), and all have ended before any starts again
      const settled = await Promise.allSettled([...leaders].map(([node, ps]) => this.leaderLoop(node, ps, sink, afterResponse, gen).catch((e: unknown) => {
        this.generation++;
        throw e;
      })));
      const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (!failed) failures = 0;
      else {
        const e: unknown = failed.reason;
        // a lost connection (a broker restarting): reconnect after a pause, a few times; a Kafka error ends the run
        if (e instanceof KafkaResponseError || ++failures > MAX_RECONNECTS) {
          this.stopped = true;
          throw e;
        }
        process.stderr.write(`runnel consume: ${(e as Error).message}; reconnecting\n`);
        await sleep(500 * failures);
      }
      if (this.stopped) break;
      await sleep(200);
      this.topic = await this.client.topic(this.topic.name).catch((e: unknown) => {
        if (e instanceof KafkaResponseError) throw e;
        return this.topic; // the broker is still away: try the known leaders again
      });
    }
  }

  /** Fetches `partitions` from `node` until stopped; ends when a leader moved (here or in another loop). */
  private async leaderLoop(node: number, partitions: number[], sink: Collector, afterResponse: () => Promise<void>, gen: number): Promise<void> {
    const conn = await this.client.broker(node);
    const v = conn.version(Fetch);
    while (!this.stopped && gen === this.generation) {
      const r = await conn.request(Fetch, {
        replicaId: -1, maxWaitMs: this.o.maxWaitMs, minBytes: 1, maxBytes: this.o.maxBytes, isolationLevel: this.o.isolationLevel, sessionId: 0, sessionEpoch: -1,
        topics: [{
          topic: this.topic.name, topicId: this.topic.topicId,
          partitions: partitions.map((p) => ({ partition: p, currentLeaderEpoch: -1, fetchOffset: this.positions.get(p)!, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: this.o.partitionMaxBytes })),
        }],
        forgottenTopicsData: [], rackId: '',
      });
      check(r.errorCode, `Fetch from node ${node}`);
      let refresh = false;
      for (const t of r.responses) {
        if (v >= 13 ? t.topicId !== this.topic.topicId : t.topic !== this.topic.name) continue;
        for (const p of t.partitions) {
          if (this.stopped) break;
          if (p.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) {
            const to = (await listOffsets(this.client, this.topic, [p.partitionIndex], this.o.reset))?.get(p.partitionIndex) ?? 0;
            process.stderr.write(`runnel consume: offset ${this.positions.get(p.partitionIndex)} is out of range on ${this.topic.name}-${p.partitionIndex}; resetting to ${this.o.reset === EARLIEST ? 'earliest' : 'latest'} (${to})\n`);
            this.positions.set(p.partitionIndex, to);
            continue;
          }
          if (RETRIABLE.has(p.errorCode)) { refresh = true; continue; }
          check(p.errorCode, `Fetch ${this.topic.name}-${p.partitionIndex}`);
          if (p.records) this.decode(p.partitionIndex, p.records, sink);
        }
      }
      await afterResponse();
      if (refresh) this.generation++;
    }
  }

  /** Decodes the whole batches of `records` (a fetch may end with a partial one) past the position; batches whose offsets all lie below it are skipped. */
  private decode(partition: number, records: Buffer, sink: Collector): void {
    sink.partition = partition;
    let at = 0;
    while (at + LOG_OVERHEAD + 5 <= records.length && !this.stopped) {
      const size = records.readInt32BE(at + At.LENGTH) + LOG_OVERHEAD;
      if (at + size > records.length) break;
      const b = records.subarray(at, at + size);
      at += size;
      if (b.readInt8(At.MAGIC) !== 2) throw new KafkaResponseError(ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT, `${this.topic.name}-${partition}: record batch magic ${b.readInt8(At.MAGIC)}`);
      const pos = this.positions.get(partition)!;
      const next = readInt64(b, At.BASE_OFFSET) + b.readInt32BE(At.LAST_OFFSET_DELTA) + 1;
      if (next <= pos) continue;
      decodeBatch(b, sink, { skipUpTo: pos - 1 });
      // control batches and compacted gaps move the position past the batch
      if (!this.stopped && (this.positions.get(partition) ?? 0) < next) this.positions.set(partition, next);
    }
  }
}
