// Table maintenance: OPTIMIZE (compact small files) and VACUUM (delete unreferenced files).
import { randomUUID } from 'node:crypto';
import { maybeCheckpoint, publishTable } from './commit.js';
import type { ArchiverContext } from './context.js';
import type { Action, AddFile } from '../../common/lake/delta/actions.js';
import { deltaStats } from './parquet/file-stats.js';
import { withPartitionRanges } from './parquet/partition-stats.js';
import { decodePartitionRanges, PARTITION_RANGES_TAG } from '../../common/lake/partition-ranges.js';
import type { TopicArchiver } from './topic-state.js';

/** Compact small files per date partition (dataChange:false remove/add pairs). */
export async function optimize(ctx: ArchiverContext, t: TopicArchiver): Promise<number> {
  t.lastOptimize = Date.now();
  await t.table.update();
  const byDate = new Map<string, AddFile[]>();
  for (const f of t.table.state.files.values()) {
    if (f.size >= ctx.config.smallFileBytes) continue;
    const d = f.partitionValues.date ?? '';
    let arr = byDate.get(d);
    if (!arr) byDate.set(d, (arr = []));
    arr.push(f);
  }
  let compacted = 0;
  for (const [date, files] of byDate) {
    if (files.length < ctx.config.optimizeMinFiles) continue;
    files.sort((a, b) => a.modificationTime - b.modificationTime || (a.path < b.path ? -1 : 1));
    // groups bounded by the target size
    const groups: AddFile[][] = [];
    let cur: AddFile[] = [];
    let size = 0;
    for (const f of files) {
      if (cur.length && size + f.size > ctx.config.targetFileBytes) {
        groups.push(cur);
        cur = [];
        size = 0;
      }
      cur.push(f);
      size += f.size;
    }
    if (cur.length) groups.push(cur);
    for (const g of groups) {
      if (g.length < 2) continue;
      const blobs: Uint8Array[] = [];
      let missing = false;
      for (const f of g) {
        const b = await ctx.store.get(`${t.topic}/${decodeURIComponent(f.path)}`);
        if (!b) {
          missing = true;
          break;
        }
        blobs.push(b);
      }
      if (missing) continue;
      // the inputs' ranges merge when all have them; otherwise the worker computes them from the rows
      const out = await ctx.pool.compact({ files: blobs, ranges: g.map((f) => decodePartitionRanges(f.tags?.[PARTITION_RANGES_TAG])) });
      const now = Date.now();
      const add: AddFile = {
        path: `date=${date}/part-${randomUUID()}.zstd.parquet`,
        partitionValues: { date },
        size: out.bytes.length,
        modificationTime: now,
        dataChange: false,
        stats: deltaStats(out.stats),
        tags: withPartitionRanges(commonTags(g), out.ranges),
      };
      await ctx.store.put(`${t.topic}/${add.path}`, out.bytes);
      const outcome = await t.table.commit((state) => {
        for (const f of g) if (!state.files.has(f.path)) return null;
        const actions: Action[] = g.map((f) => ({
          remove: {
            path: f.path,
            deletionTimestamp: now,
            dataChange: false,
            extendedFileMetadata: true,
            partitionValues: f.partitionValues,
            size: f.size,
          },
        }));
        actions.push({ add });
        return actions;
      }, 'OPTIMIZE');
      if (outcome.status === 'committed') {
        compacted += g.length;
        ctx.stats.compactions++;
        ctx.log.info('optimized', { topic: t.topic, date, files: g.length, into: add.size, version: outcome.version });
        await publishTable(ctx, t).catch((e) => ctx.log.warn('cannot publish the table summary', { topic: t.topic, err: e as Error }));
        await maybeCheckpoint(ctx, t, outcome.version);
      } else {
        await ctx.store.delete(`${t.topic}/${add.path}`).catch(() => {});
      }
    }
  }
  return compacted;
}

/** The tags every input file carries with the same value: they still hold for the file merged from them. */
function commonTags(files: AddFile[]): Record<string, string> {
  const out: Record<string, string> = { ...(files[0]?.tags ?? {}) };
  for (const f of files.slice(1)) for (const k of Object.keys(out)) if (f.tags?.[k] !== out[k]) delete out[k];
  delete out[PARTITION_RANGES_TAG];
  return out;
}

/** Delete data files that are neither referenced nor within the retention window. */
export async function vacuum(ctx: ArchiverContext, t: TopicArchiver): Promise<number> {
  t.lastVacuum = Date.now();
  await t.table.update();
  const cutoff = Date.now() - ctx.config.vacuumRetentionMs;
  const objects = await ctx.store.list(`${t.topic}/`);
  const logPrefix = `${t.topic}/_delta_log/`;
  let deleted = 0;
  for (const o of objects) {
    if (o.key.startsWith(logPrefix)) continue;
    const rel = o.key.slice(t.topic.length + 1);
    const encoded = rel.split('/').map(encodeURIComponent).join('/').replace(/%3D/g, '=');
    if (t.table.state.files.has(rel) || t.table.state.files.has(encoded)) continue;
    const tomb = t.table.state.tombstones.get(rel) ?? t.table.state.tombstones.get(encoded);
    if (tomb && (tomb.deletionTimestamp ?? 0) > cutoff) continue;
    if (o.lastModified > cutoff) continue;
    await ctx.store.delete(o.key);
    deleted++;
  }
  ctx.stats.filesVacuumed += deleted;
  if (deleted) ctx.log.info('vacuumed', { topic: t.topic, deleted });
  return deleted;
}
