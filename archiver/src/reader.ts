// Reading the owned partitions: XRANGE into each topic's buffer, and the log
// end offsets the lag is measured against.
//
// One command per partition, all sent before any reply is awaited. No pipeline
// or MULTI spans partitions: on a Redis Cluster the partitions sit on different
// shards (their keys carry different hash tags), and each command is routed,
// and redirected on MOVED/ASK, on its own.
import { Internal, RunnelError } from '../../common/errors.js';
import { corrupt, RecordBatchError } from '../../common/record-batch/errors.js';
import { readBatchHeader, type BatchHeader } from '../../common/record-batch/header.js';
import { checkBatchHeader, validateBatch } from '../../common/record-batch/validate.js';
import type { ArchiverContext } from './context.js';
import { continueRecheck, pastStall, resumePartition, stallHolds, stallPartition } from './records/stall.js';
import { unencodableReason } from './records/timestamps.js';
import type { PartState, TopicArchiver } from './topic-state.js';

const UNENCODABLE = Internal.ARCHIVER_BATCH_UNENCODABLE.code;

/** XRANGE COUNT of a topic's first read, before the size of its batches is known. */
export const FIRST_READ_COUNT = 16;

/** Stored bytes a topic buffer may hold before reading pauses. */
export function readLimitBytes(ctx: ArchiverContext): number {
  return Math.min(ctx.config.targetFileBytes * 8, 256 * 1024 * 1024);
}

/** One XRANGE per owned partition with room in its table buffer, sent together. */
export async function pollOnce(ctx: ArchiverContext): Promise<number> {
  const wanted: { t: TopicArchiver; ps: PartState; epoch: number; count: number }[] = [];
  const now = Date.now();
  for (const t of ctx.topics.values()) {
    if (t.estimated() >= ctx.config.targetFileBytes || t.bufBytes >= readLimitBytes(ctx)) continue;
    // fetch about what still fits in this file, not COUNT huge batches that would be dropped
    const budget = Math.min(ctx.config.targetFileBytes / t.ratio, readLimitBytes(ctx)) - t.bufBytes;
    // before any batch was seen its size is unknown: a first read of FIRST_READ_COUNT, not readCount
    // batches that may each be ~1 MiB (one reply the event loop would parse in one go)
    const count = t.avgBatch
      ? Math.max(1, Math.min(ctx.config.readCount, Math.ceil(budget / t.avgBatch / Math.max(1, t.parts.size))))
      : Math.min(ctx.config.readCount, FIRST_READ_COUNT);
    for (const ps of t.parts.values()) {
      if (stallHolds(ps, now)) continue;
      wanted.push({ t, ps, epoch: ps.epoch, count });
    }
  }
  // The last stable offsets, asked before the reads (one command per partition, all sent together):
  // only decided transactions are archived. A partition whose bound cannot be read waits for the next round.
  const bounds = await Promise.allSettled(wanted.map((w) => ctx.hooks.lastStableOffset(w.t.topic, w.ps.partition)));
  const reqs: { t: TopicArchiver; ps: PartState; epoch: number; lso: number | null; count: number }[] = [];
  let boundError: unknown = null;
  wanted.forEach((w, i) => {
    const b = bounds[i]!;
    if (b.status === 'rejected') {
      boundError ??= b.reason;
      return;
    }
    if (b.value !== null && w.ps.last + 1 >= b.value) return;
    reqs.push({ ...w, lso: b.value });
  });
  if (!reqs.length) {
    if (boundError !== null) throw boundError;
    return 0;
  }
  const res = await Promise.allSettled(
    reqs.map(async (r) =>
      ctx.redis.xrangeBuffer(ctx.keys.log(r.t.topic, r.ps.partition), r.ps.last < 0 ? '-' : `(${r.ps.last}-1`, '+', 'COUNT', r.count),
    ),
  );
  // a failed read (a shard away, a slot moving) leaves its partition where it was; the others go on
  let firstError: unknown = null;
  let total = 0;
  for (let i = 0; i < reqs.length; i++) {
    const { t, ps, epoch, lso, count } = reqs[i]!;
    const r = res[i]!;
    if (r.status === 'rejected') {
      firstError ??= r.reason;
      continue;
    }
    if (t.parts.get(ps.partition) !== ps || ps.epoch !== epoch) continue; // reset or dropped meanwhile
    const entries = r.value as [Buffer, Buffer[]][];
    let stoppedAtLso = false;
    let full = false;
    const recheck = ps.stalled; // a stalled partition's bad batch is due to be checked again
    let stalledNow = false;
    for (const [idBuf, fields] of entries) {
      if (t.estimated() >= ctx.config.targetFileBytes || t.bufBytes >= readLimitBytes(ctx)) {
        full = true; // leave the rest for the next file
        break;
      }
      const b = fieldB(fields);
      const id = idBuf.toString();
      let h: BatchHeader;
      try {
        h = checkStored(ctx, t, ps, b, id);
      } catch (e) {
        if (!(e instanceof RecordBatchError)) throw e;
        stallPartition(ctx, t, ps, id, e);
        stalledNow = true;
        break;
      }
      // an undecodable batch (RN4003) is past once it reads; an unencodable one (RN4007) once it also encodes, below
      if (recheck && ps.stalled && ps.stall?.code !== UNENCODABLE && pastStall(ps, h.baseOffset)) resumePartition(ctx, t, ps);
      const lastOffset = h.baseOffset + h.lastOffsetDelta;
      if (lso !== null && lastOffset >= lso) {
        stoppedAtLso = true;
        break;
      }
      if (lastOffset <= ps.last) continue;
      const aborted =
        h.isTransactional &&
        (await ctx.hooks.isAbortedBatch({
          topic: t.topic,
          partition: ps.partition,
          baseOffset: h.baseOffset,
          lastOffset,
          producerId: BigInt(h.producerId),
          producerEpoch: h.producerEpoch,
          isTransactional: h.isTransactional,
        }));
      const archived = !h.isControl && !aborted;
      if (archived) {
        // a record timestamp the lake cannot hold stalls this partition only (records/timestamps.ts)
        let why: string | null;
        try {
          why = unencodableReason(b!, h, ps.last, t.verifyRecords || t.suspects.has(ps.partition));
        } catch (e) {
          if (!(e instanceof RecordBatchError)) throw e;
          stallPartition(ctx, t, ps, id, e);
          stalledNow = true;
          break;
        }
        if (why !== null) {
          stallPartition(ctx, t, ps, id, new Error(why), Date.now(), 'ARCHIVER_BATCH_UNENCODABLE');
          stalledNow = true;
          break;
        }
      }
      if (recheck && ps.stalled && pastStall(ps, h.baseOffset)) resumePartition(ctx, t, ps);
      if (h.baseOffset > ps.last + 1) {
        // trimmed before it was archived, or a compacted/rewritten log: the lake has a hole here
        ctx.log.warn(new RunnelError('ARCHIVER_OFFSET_GAP', `${t.topic}/${ps.partition}: next batch starts at ${h.baseOffset}, expected ${ps.last + 1}`).message);
      }
      total++;
      if (!t.bufStart) t.bufStart = Date.now();
      if (archived) {
        // copy (redis-parser may return slices of its reusable bufferPool) into an own
        // ArrayBuffer that is later transferred to the worker thread
        const bytes = new Uint8Array(b!); // present: checkStored refuses entries without it
        t.buf.push({ p: ps.partition, bytes, lastOffset, skipUpTo: ps.last });
        t.bufBytes += bytes.length;
        t.avgBatch = t.avgBatch ? 0.9 * t.avgBatch + 0.1 * bytes.length : bytes.length;
        ps.pendingTs.push([lastOffset, h.timestampType === 1 ? h.maxTimestamp : h.baseTimestamp]);
      }
      ps.last = lastOffset;
    }
    if (recheck && ps.stalled && !stalledNow) {
      // no error this round: at the stream end the bad entry is gone; otherwise read on
      if (entries.length < count && !full && !stoppedAtLso) resumePartition(ctx, t, ps);
      else continueRecheck(ps);
    }
    if (entries.length < count && !stoppedAtLso && !full && !ps.stalled) ps.logEnd = ps.last + 1;
  }
  if (firstError !== null) throw firstError;
  if (boundError !== null) throw boundError;
  return total;
}

/**
 * The checks a stored batch passes before it is buffered. Header, counts and
 * CRC always (the CRC is hardware CRC-32C, ~GB/s); the records themselves
 * (decompress and walk) only for partitions under suspicion, because the
 * Parquet worker decodes them anyway and a failure there puts the topic in
 * `verifyRecords` mode (commit.ts).
 */
function checkStored(ctx: ArchiverContext, t: TopicArchiver, ps: PartState, b: Buffer | undefined, id: string): BatchHeader {
  if (!b) throw corrupt(`entry ${id} has no field b`);
  const crc = ctx.config.verifyCrc;
  if (t.verifyRecords || t.suspects.has(ps.partition)) return validateBatch(b, 'stored', { crc });
  return checkBatchHeader(b, 'stored', crc);
}

/** Log end offset of every owned partition, from the last entry of its stream (one XREVRANGE each, sent together). */
export async function refreshLogEnds(ctx: ArchiverContext) {
  const reqs: { ps: PartState; topic: string }[] = [];
  for (const t of ctx.topics.values()) for (const ps of t.parts.values()) reqs.push({ ps, topic: t.topic });
  if (!reqs.length) return;
  const res = await Promise.allSettled(reqs.map(async (r) => ctx.redis.xrevrangeBuffer(ctx.keys.log(r.topic, r.ps.partition), '+', '-', 'COUNT', 1)));
  res.forEach((x, i) => {
    if (x.status === 'rejected') return;
    const entries = x.value as [Buffer, Buffer[]][];
    const e = entries[0];
    if (!e) return;
    const b = fieldB(e[1]);
    if (!b) return;
    try {
      const h = readBatchHeader(b);
      reqs[i]!.ps.logEnd = h.baseOffset + h.lastOffsetDelta + 1;
    } catch {
      /* reported by the reader */
    }
  });
}

function fieldB(fields: Buffer[]): Buffer | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const f = fields[i]!;
    if (f.length === 1 && f[0] === 0x62) return fields[i + 1];
  }
  return undefined;
}
