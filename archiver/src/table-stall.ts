// A table whose Delta log cannot be read past a torn commit (RN4008,
// delta/torn.ts) stalls as a whole: no partition of it is adopted and no
// flush of it is committed, and nothing in the lake is deleted or rewritten.
// Like a stalled partition (records/stall.ts) it is logged once, then at most
// every STALL_LOG_EVERY_MS; it is counted once per torn file (`tornCommits`)
// and shown as runnel_archiver_table_stalled{topic,code}. The log is read
// again with backoff (1 s doubling to 60 s), so a repaired table resumes
// without a restart.
import type { ArchiverContext } from './context.js';
import type { TornCommit } from '../../common/lake/delta/torn.js';
import { STALL_LOG_EVERY_MS, STALL_RETRY_FIRST_MS, STALL_RETRY_MAX_MS } from './records/stall.js';
import type { TableStall, TopicArchiver } from './topic-state.js';

/** True while the table's log is not to be read again yet. */
export function tableStallHolds(t: TopicArchiver | undefined, now: number): boolean {
  return t?.tableStall !== undefined && now < t.tableStall.retryAt;
}

/** Records that reading `t`'s log failed on the torn commit `e` (every caller that meets it, once each is enough). */
export function stallTable(ctx: ArchiverContext, t: TopicArchiver, e: TornCommit, now = Date.now()): void {
  const prev = t.tableStall;
  const same = prev !== undefined && prev.file === e.file;
  // partitions adopted in the same round all meet the file: only a read after the hold doubles the wait
  const retried = same && now >= prev.retryAt;
  const retryMs = !same ? STALL_RETRY_FIRST_MS : retried ? Math.min(prev.retryMs * 2, STALL_RETRY_MAX_MS) : prev.retryMs;
  const logNow = !same || now - prev.loggedAt >= STALL_LOG_EVERY_MS;
  t.tableStall = {
    code: e.code,
    file: e.file,
    since: same ? prev.since : now,
    retryAt: !same || retried ? now + retryMs : prev.retryAt,
    retryMs,
    loggedAt: logNow ? now : prev!.loggedAt,
  };
  t.backoffUntil = Math.max(t.backoffUntil, t.tableStall.retryAt);
  if (!same) {
    ctx.stats.tornCommits++;
    ctx.stats.errors++;
  }
  if (logNow) ctx.log.error(e.message, { topic: t.topic, file: e.file, stalledForMs: now - t.tableStall.since });
}

/** The table's log read (or a commit went through): the stall is over. */
export function clearTableStall(ctx: ArchiverContext, t: TopicArchiver, now = Date.now()): void {
  const s = t.tableStall;
  if (!s) return;
  t.tableStall = undefined;
  ctx.log.info('table resumed after a torn commit', { topic: t.topic, file: s.file, stalledForMs: now - s.since });
}
