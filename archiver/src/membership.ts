// Which partitions this process archives: topics registered in Redis, the archiver
// group, rendezvous assignment, and the partition leases (see lease.ts).
import { RunnelError } from '../../common/errors.js';
import { publishArchived, publishTable } from './commit.js';
import type { ArchiverContext } from './context.js';
import { appIdOf, parsePlacement } from './keys.js';
import { rendezvousMember } from '../../common/rendezvous.js';
import { refreshLogEnds } from './reader.js';
import { TornCommit } from '../../common/lake/delta/torn.js';
import { clearTableStall, stallTable, tableStallHolds } from './table-stall.js';
import { TopicArchiver, type SchemaMode, type TopicInfo, type TopicSchemas } from './topic-state.js';

/** The broker's largest topic (topic.max.partitions is at most cluster.max.partitions, default 100000). */
const MAX_TOPIC_PARTITIONS = 100_000;

export class Membership {
  private topicInfo = new Map<string, TopicInfo>();
  private members: string[] = [];
  private readonly adopting = new Set<string>();
  /** Partitions adopted / released since the last summary line (one info line per tick, not one per partition). */
  private changed = { adopted: [] as string[], released: [] as string[] };

  constructor(private readonly ctx: ArchiverContext) {}

  topicId(topic: string): string | undefined {
    return this.topicInfo.get(topic)?.id;
  }

  /** The topic's typed-column settings, or undefined when neither value nor key is decoded. */
  topicSchemas(topic: string): TopicSchemas | undefined {
    return this.topicInfo.get(topic)?.schemas;
  }

  /** Topics already reported as unusable (logged once). */
  private readonly refused = new Set<string>();

  /**
   * Re-reads `rn:topics`. Every record read teaches the key builder the topic's
   * placement salts (keys.ts) before any key of the topic is built; a record
   * whose placement cannot be used is refused like a bad partition count.
   */
  async refreshTopics(): Promise<void> {
    const ctx = this.ctx;
    const all = await ctx.redis.hgetall(ctx.keys.topics());
    const next = new Map<string, TopicInfo>();
    for (const [name, json] of Object.entries(all)) {
      if (name.startsWith('__')) continue; // internal topics are not archived
      if (ctx.config.topics && !ctx.config.topics.includes(name)) continue;
      let info: { partitions?: unknown; id?: string; placement?: unknown; configs?: Record<string, unknown> };
      try {
        info = JSON.parse(json) as typeof info;
        if (info === null || typeof info !== 'object') throw new Error('not an object');
      } catch {
        ctx.log.warn('unreadable topic entry', { topic: name });
        continue;
      }
      const partitions = info.partitions;
      const placement = parsePlacement(info.placement);
      if (!(typeof partitions === 'number' && Number.isInteger(partitions) && partitions > 0 && partitions <= MAX_TOPIC_PARTITIONS)) {
        // A hostile or corrupt count (e.g. 2^31-1) must not make this process enumerate it.
        this.refuse(name, 'topic record has an unusable partition count; not archived', { partitions: String(partitions), limit: MAX_TOPIC_PARTITIONS });
        continue;
      }
      if (placement === null) {
        // Without its salts the partitions' keys (and so their shard) are unknown.
        this.refuse(name, 'topic record has an unusable placement; not archived', { placement: JSON.stringify(info.placement)?.slice(0, 200) ?? '' });
        continue;
      }
      this.refused.delete(name);
      ctx.keys.place(name, placement);
      next.set(name, { partitions, id: info.id, placement, schemas: topicSchemas(info.configs) });
    }
    // Placement of a topic that is gone is kept while this process still has its
    // table loaded: its partitions' leases are released with those keys.
    for (const name of this.topicInfo.keys()) if (!next.has(name) && !ctx.topics.has(name)) ctx.keys.forget(name);
    this.topicInfo = next;
  }

  private refuse(topic: string, msg: string, fields: Record<string, string | number>) {
    if (this.refused.has(topic)) return;
    this.refused.add(topic);
    this.ctx.log.error(msg, { topic, ...fields });
  }

  private assigned(): { topic: string; p: number }[] {
    const out: { topic: string; p: number }[] = [];
    const members = this.members.length ? this.members : [this.ctx.config.archiverId];
    for (const [topic, info] of this.topicInfo) {
      for (let p = 0; p < info.partitions; p++) {
        if (rendezvousMember(members, `${topic}/${p}`) === this.ctx.config.archiverId) out.push({ topic, p });
      }
    }
    return out;
  }

  /** One info line for the partitions adopted and released since the last one (per-partition lines are debug). */
  private summarizeChanges(): void {
    const { adopted, released } = this.changed;
    if (!adopted.length && !released.length) return;
    const list = (a: string[]) => (a.length > 20 ? `${a.slice(0, 20).join(',')},…` : a.join(','));
    this.ctx.log.info('partitions changed', { adopted: adopted.length, released: released.length, adoptedPartitions: list(adopted), releasedPartitions: list(released) });
    this.changed = { adopted: [], released: [] };
  }

  async tick(): Promise<void> {
    const ctx = this.ctx;
    if (ctx.stopping) return;
    this.summarizeChanges();
    this.members = await ctx.leases.heartbeat();
    // renew what we hold
    const held: { topic: string; p: number }[] = [];
    for (const t of ctx.topics.values()) for (const p of t.parts.keys()) held.push({ topic: t.topic, p });
    const adopting = [...this.adopting].map((k) => {
      const i = k.lastIndexOf('/');
      return { topic: k.slice(0, i), p: Number(k.slice(i + 1)) };
    });
    const ok = await ctx.leases.renew([...held, ...adopting]);
    held.forEach((h, i) => {
      if (!ok[i]) {
        ctx.log.warn(new RunnelError('ARCHIVER_LEASE_LOST', `${h.topic}/${h.p}`).message);
        this.dropPartition(h.topic, h.p);
      }
    });
    // release partitions that moved to another member or whose topic is gone
    const want = new Set(this.assigned().map((a) => `${a.topic}/${a.p}`));
    for (const t of ctx.topics.values()) {
      for (const p of [...t.parts.keys()]) {
        if (!want.has(`${t.topic}/${p}`)) {
          this.dropPartition(t.topic, p);
          await ctx.leases.release(t.topic, p).catch(() => {});
        }
      }
    }
    // acquire newly assigned partitions; adoption (log replay) runs in the background so a
    // slow replay never delays lease renewal
    const now = Date.now();
    for (const a of this.assigned()) {
      const t = ctx.topics.get(a.topic);
      const key = `${a.topic}/${a.p}`;
      if (t?.parts.has(a.p) || this.adopting.has(key)) continue;
      if (tableStallHolds(t, now)) continue; // a torn commit: its log is read again after the backoff
      if (!(await ctx.leases.acquire(a.topic, a.p))) continue;
      this.adopting.add(key);
      void this.adoptPartition(a.topic, a.p)
        .catch(async (e) => {
          if (e instanceof TornCommit) stallTable(ctx, this.topic(a.topic), e); // one line per table, not per partition
          else {
            ctx.stats.errors++;
            ctx.log.warn('cannot adopt partition', { topic: a.topic, partition: a.p, err: e as Error });
          }
          await ctx.leases.release(a.topic, a.p).catch(() => {});
        })
        .finally(() => this.adopting.delete(key));
    }
    await refreshLogEnds(ctx).catch(() => {});
    this.summarizeChanges();
  }

  private topic(name: string): TopicArchiver {
    let t = this.ctx.topics.get(name);
    if (!t) {
      t = new TopicArchiver(name, this.ctx.store, {
        write: (a) => this.ctx.pool.writeCheckpoint(a),
        read: (b) => this.ctx.pool.readCheckpoint(b),
      });
      this.ctx.topics.set(name, t);
    }
    return t;
  }

  private async adoptPartition(topic: string, p: number) {
    const ctx = this.ctx;
    const t = this.topic(topic);
    await t.withLock(async () => {
      if (ctx.stopping) return;
      const fresh = !t.loaded;
      if (fresh) {
        await t.table.load();
        t.loaded = true;
      } else {
        await t.table.update();
      }
      clearTableStall(ctx, t);
      // a table written for an earlier topic with the same name: its txn versions do not apply
      const tableTopicId = t.table.state.metaData?.configuration?.['runnel.topicId'];
      const topicId = this.topicInfo.get(topic)?.id;
      if (tableTopicId && topicId && tableTopicId !== topicId) {
        throw new RunnelError(
          'ARCHIVER_DELTA_LOG_INVALID',
          `table ${topic} belongs to topic id ${tableTopicId}, the topic now has id ${topicId} (re-created?): archive it to another lake path or remove the old table`,
        );
      }
      // a restarted archiver publishes the table it found (the console shows it before the next commit)
      if (fresh) await publishTable(ctx, t).catch((e) => ctx.log.warn('cannot publish the table summary', { topic, err: e as Error }));
      const v = t.table.state.txns.get(appIdOf(topic, p))?.version ?? -1;
      t.parts.set(p, { partition: p, committed: v, base: v, last: v, epoch: 0, logEnd: null, pendingTs: [], stalled: false });
      if (v >= 0) await publishArchived(ctx, topic, [{ p, v }]).catch((e) => ctx.log.warn('cannot publish archived offset', { topic, partition: p, err: e as Error }));
      ctx.log.debug('partition adopted', { topic, partition: p, resumeAfter: v, tableVersion: t.table.state.version });
      this.changed.adopted.push(`${topic}/${p}`);
    });
    ctx.wakeUp();
  }

  private dropPartition(topic: string, p: number) {
    const t = this.ctx.topics.get(topic);
    const ps = t?.parts.get(p);
    if (!t || !ps) return;
    t.parts.delete(p);
    ps.epoch++;
    const keep = t.buf.filter((b) => b.p !== p);
    if (keep.length !== t.buf.length) {
      t.buf = keep;
      t.bufBytes = keep.reduce((s, b) => s + b.bytes.length, 0);
      if (!keep.length) t.bufStart = 0;
    }
    this.ctx.log.debug('partition released', { topic, partition: p });
    this.changed.released.push(`${topic}/${p}`);
  }
}

/**
 * The topic configs archive.value.schema and archive.key.schema (the broker checks
 * their values: none | id | latest). `id`: the part is in the Confluent wire format
 * and is decoded with the registry schema its id names; `latest`: the part is a
 * bare Avro body of the latest schema of subject `<topic>-value` (`-key`). Absent:
 * raw only.
 */
export function topicSchemas(configs: Record<string, unknown> | undefined): TopicSchemas | undefined {
  const mode = (v: unknown): SchemaMode => (v === 'id' || v === 'latest' ? v : 'none');
  const value = mode(configs?.['archive.value.schema']);
  const key = mode(configs?.['archive.key.schema']);
  return value !== 'none' || key !== 'none' ? { value, key } : undefined;
}
