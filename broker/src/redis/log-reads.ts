// Reading a partition's batches by offset (Fetch, retention, time lookups):
// the uncompacted log first, the compacted prefix for offsets below it
// (docs/architecture.md, "Log compaction").
import type { RedisClient } from '../../../common/redis/connect.js';
import type { StoredBatch, TopicPartition } from '../storage/log-store.js';
import { entryId, type Keys } from './keys.js';
import { storageError, toBatches, type RawEntry } from './stream-entries.js';

/** XRANGE / XREVRANGE (`reverse`) of a log stream as batches of some shape. */
export interface Ranges<B> {
  range(reverse: boolean, key: string, start: string, end: string, count: number): Promise<B[]>;
  lastOffsetDelta(b: B): number;
}

export class LogReads {
  constructor(private readonly client: () => RedisClient, private readonly keys: Keys) {}

  /**
   * A sequential consumer fetches from a batch boundary, so one inclusive
   * XRANGE usually answers; only when the first entry starts past `offset`
   * is the batch containing it looked up with XREVRANGE. An offset below
   * every batch of the log is in the compacted prefix, if anywhere: a
   * compaction swap between the two reads only moves batches from the log to
   * the prefix, so the prefix read after it holds what the log lost.
   */
  async read(tp: TopicPartition, offset: number, count: number): Promise<StoredBatch[]> {
    return this.readVia(this.ioredisRanges, tp, offset, count);
  }

  /** read() with the ranges of `via` (for Fetch, the streaming read connection's). */
  async readVia<B extends { baseOffset: number }>(via: Ranges<B>, tp: TopicPartition, offset: number, count: number): Promise<B[]> {
    try {
      const from = await this.readStream(via, this.keys.log(tp), offset, count);
      if (from.length > 0 && from[0]!.baseOffset <= offset) return from;
      const compacted = await this.readStream(via, this.keys.compacted(tp), offset, count);
      // A compacted batch may end before `offset` (its last records were removed): useless here.
      return compacted.some((b) => b.baseOffset + via.lastOffsetDelta(b) >= offset) ? compacted : from;
    } catch (e) {
      throw storageError(e);
    }
  }

  /** The batch of `key` containing `offset` (or the last one before it) and the following ones. */
  private async readStream<B extends { baseOffset: number }>(via: Ranges<B>, key: string, offset: number, count: number): Promise<B[]> {
    const id = entryId(offset);
    const from = await via.range(false, key, id, '+', count);
    if (from.length > 0 && from[0]!.baseOffset === offset) return from;
    const containing = await via.range(true, key, id, '-', 1);
    return containing.length ? [containing[0]!, ...from].slice(0, count) : from;
  }

  /** The ranges as ioredis reads them (each batch one Buffer). */
  readonly ioredisRanges: Ranges<StoredBatch> = {
    range: async (reverse, key, start, end, count) => toBatches(await ((reverse ? this.client().xrevrangeBuffer(key, start, end, 'COUNT', count) : this.client().xrangeBuffer(key, start, end, 'COUNT', count)) as unknown as Promise<RawEntry[]>)),
    lastOffsetDelta: (b) => b.bytes.readInt32BE(23),
  };

  async readBackwards(tp: TopicPartition, beforeOrAt: number, count: number): Promise<StoredBatch[]> {
    try {
      const id = entryId(beforeOrAt);
      const log = toBatches(await (this.client().xrevrangeBuffer(this.keys.log(tp), id, '-', 'COUNT', count) as unknown as Promise<RawEntry[]>));
      if (log.length >= count) return log;
      const compacted = toBatches(await (this.client().xrevrangeBuffer(this.keys.compacted(tp), id, '-', 'COUNT', count - log.length) as unknown as Promise<RawEntry[]>));
      // Older than every batch of the log: the compacted prefix continues it (never overlapping it).
      return [...log, ...compacted.filter((b) => log.length === 0 || b.baseOffset < log[log.length - 1]!.baseOffset)];
    } catch (e) {
      throw storageError(e);
    }
  }
}
