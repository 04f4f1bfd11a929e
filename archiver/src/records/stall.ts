// A stored batch the archiver cannot decode (CRC mismatch, undecompressable
// records, inconsistent counts or framing: RN4003) or cannot write to the lake
// (a record timestamp outside what Delta holds, records/timestamps.ts: RN4007)
// stalls only its own partition:
// reading stops before the batch, everything before it is still committed,
// and the other partitions of the topic keep archiving. The stall is counted
// in `corruptBatches` (RN4003) or `unencodableBatches` (RN4007), shown per
// partition in the lag report
// (`stalled`, metric runnel_archiver_partition_stalled) and logged once, then
// at most every STALL_LOG_EVERY_MS while it lasts. The batch is read and
// checked again with backoff, so a repaired log (the entry deleted or
// trimmed) resumes without a restart.
import { Internal, RunnelError } from '../../../common/errors.js';
import { baseOfEntryId } from '../../../common/keys.js';
import type { ArchiverContext } from '../context.js';
import type { PartState, TopicArchiver } from '../topic-state.js';

export const STALL_RETRY_FIRST_MS = 1000;
export const STALL_RETRY_MAX_MS = 60_000;
export const STALL_LOG_EVERY_MS = 5 * 60_000;

/** True when a stalled partition should stay out of this read round. */
export function stallHolds(ps: PartState, now: number): boolean {
  return ps.stalled && (ps.stall === undefined || now < ps.stall.retryAt);
}

/** Why a batch stalls its partition: it cannot be decoded (RN4003), or its records cannot be written to the lake (RN4007). */
export type StallKind = 'ARCHIVER_CORRUPT_BATCH' | 'ARCHIVER_BATCH_UNENCODABLE';

/** Stops `ps` before stream entry `entryId`, whose batch failed with `err`. */
export function stallPartition(
  ctx: ArchiverContext,
  t: TopicArchiver,
  ps: PartState,
  entryId: string,
  err: Error,
  now = Date.now(),
  kind: StallKind = 'ARCHIVER_CORRUPT_BATCH',
): void {
  t.suspects.add(ps.partition);
  const prev = ps.stall;
  const same = prev !== undefined && prev.entryId === entryId;
  const retryMs = same ? Math.min(prev.retryMs * 2, STALL_RETRY_MAX_MS) : STALL_RETRY_FIRST_MS;
  const logNow = !same || now - prev.loggedAt >= STALL_LOG_EVERY_MS;
  ps.stalled = true;
  ps.stall = {
    code: Internal[kind].code,
    entryId,
    baseOffset: baseOfEntryId(entryId),
    reason: err.message,
    since: same ? prev.since : now,
    retryAt: now + retryMs,
    retryMs,
    loggedAt: logNow ? now : prev!.loggedAt,
  };
  if (!same) {
    if (kind === 'ARCHIVER_CORRUPT_BATCH') ctx.stats.corruptBatches++;
    else ctx.stats.unencodableBatches++;
    ctx.stats.errors++;
  }
  if (logNow) {
    const msg = `${t.topic}/${ps.partition} stalled at stream entry ${entryId} (archived up to ${ps.last}): ${err.message}`;
    ctx.log.error(new RunnelError(kind, msg).message, {
      topic: t.topic,
      partition: ps.partition,
      entryId,
      baseOffset: ps.stall.baseOffset,
      stalledForMs: now - ps.stall.since,
    });
  }
}

/**
 * During a re-check read: true once the read got to or past the bad batch
 * without an error (the batch reads now, or its entry was removed).
 */
export function pastStall(ps: PartState, baseOffset: number): boolean {
  return ps.stall !== undefined && baseOffset >= ps.stall.baseOffset;
}

/** A re-check read ended before it reached the bad batch: read on right away. */
export function continueRecheck(ps: PartState): void {
  if (ps.stall) ps.stall.retryAt = 0;
}

/** The re-check found the way past the bad batch clear (entry removed or readable now). */
export function resumePartition(ctx: ArchiverContext, t: TopicArchiver, ps: PartState, now = Date.now()): void {
  const s = ps.stall;
  ps.stalled = false;
  ps.stall = undefined;
  t.suspects.delete(ps.partition);
  ctx.log.info('partition resumed after a stall', { topic: t.topic, partition: ps.partition, entryId: s?.entryId, stalledForMs: s ? now - s.since : 0 });
}
