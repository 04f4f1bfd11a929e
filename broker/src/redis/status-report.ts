// Read-only cluster status for `runnel status` and the web console: broker
// registrations, each partition's leader, epoch, log end and archived offset,
// consumer groups with their lag, and Redis memory per primary. Partition keys come from the store's key builder, which learns
// every topic's placement from its record (listTopics), never by hand.
import { isCluster } from '../../../common/redis/connect.js';
import { META_FIELD } from './keys.js';
import { nodeIdOfInstance } from '../storage/cluster-store.js';
import { leaseUnitOf } from '../log/internal-topics.js';
import type { RedisLogStore } from './redis-log-store.js';
import { RedisGroupStore } from './redis-group-store.js';
import { groupLag, type GroupLag } from '../groups/group-lag.js';

export type { GroupLag } from '../groups/group-lag.js';
export type { BrokerStatus, LakeTable, PartitionStatus, RedisMemory, TopicStatus } from '../storage/status.js';
import type { BrokerStatus, LakeTable, PartitionStatus, RedisMemory, TopicStatus } from '../storage/status.js';

export interface StatusReport {
  cluster: boolean;
  time: number;
  brokers: BrokerStatus[];
  topics: TopicStatus[];
  /** Consumer groups (by id) with their committed offsets and lag. */
  groups: GroupLag[];
  redis: RedisMemory[];
}

const num = (v: string | null | undefined, dflt: number): number => (v === null || v === undefined || v === '' ? dflt : Number(v));

/** Registrations in `<prefix>:brokers`, liveness from `<prefix>:broker-leases` (the index the brokers read). */
export async function brokerStatus(store: RedisLogStore, now: number): Promise<BrokerStatus[]> {
  const keys = store.keyNames;
  const [regs, leases] = await Promise.all([
    store.redis.hgetall(keys.brokers),
    store.redis.zrange(keys.brokerLeases, 0, -1, 'WITHSCORES'),
  ]);
  const expiry = new Map<string, number>();
  for (let i = 0; i + 1 < leases.length; i += 2) expiry.set(leases[i]!, Number(leases[i + 1]));
  const out: BrokerStatus[] = [];
  for (const [id, json] of Object.entries(regs)) {
    let r: Partial<BrokerStatus> & { instance?: string; expiresAt?: number };
    try {
      r = JSON.parse(json) as typeof r;
    } catch {
      continue;
    }
    const expiresAt = expiry.get(id) ?? r.expiresAt ?? 0;
    out.push({
      nodeId: Number(r.nodeId ?? id), host: String(r.host ?? ''), port: Number(r.port ?? 0), rack: r.rack ?? null,
      instance: r.instance ?? null, expiresAt, live: expiry.has(id) && expiresAt >= now,
    });
  }
  return out.sort((a, b) => a.nodeId - b.nodeId);
}

/** Every topic (in name order) with, per partition, its lease holder, epoch, log end and archived offset. */
export async function topicStatus(store: RedisLogStore): Promise<TopicStatus[]> {
  const keys = store.keyNames;
  const topics = (await store.listTopics()).filter((t) => Number.isFinite(t.partitions)).sort((a, b) => a.name.localeCompare(b.name));
  return Promise.all(topics.map(async (t) => ({
    name: t.name,
    partitions: await Promise.all(Array.from({ length: t.partitions }, async (_, partition): Promise<PartitionStatus> => {
      const tp = { topic: t.name, partition };
      // `__consumer_offsets` partition s is led under coordinator slot s's lease, with the slot's coordinator epoch as leader epoch.
      const unit = leaseUnitOf(tp);
      const [holder, meta, slotEpoch] = await Promise.all([
        store.redis.get(unit.kind === 'coordinator' ? keys.coordinatorLease(unit.slot) : keys.leader(tp)),
        store.redis.hmget(keys.meta(tp), META_FIELD.leaderEpoch, META_FIELD.next, META_FIELD.archived, META_FIELD.logStartOffset, META_FIELD.remoteLogStart),
        unit.kind === 'coordinator' ? store.redis.get(keys.coordinatorEpoch(unit.slot)) : null,
      ]);
      const logEndOffset = num(meta[1], 0);
      const archivedOffset = meta[2] === null ? null : Number(meta[2]);
      const local = num(meta[3], 0);
      const remote = meta[4] === null || meta[4] === undefined ? null : Number(meta[4]);
      const tiered = remote !== null && remote < local;
      return {
        topic: t.name,
        partition,
        leader: holder === null ? null : nodeIdOfInstance(holder),
        leaderInstance: holder,
        leaderEpoch: unit.kind === 'coordinator' ? num(slotEpoch, 0) : num(meta[0], 0),
        logEndOffset,
        logStartOffset: tiered ? remote : local,
        ...(tiered ? { localLogStartOffset: local } : {}),
        archivedOffset,
        lakeLagRecords: archivedOffset === null ? null : Math.max(0, logEndOffset - 1 - archivedOffset),
      };
    })),
  })));
}

function parseInfo(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0 && !line.startsWith('#')) out[line.slice(0, i)] = line.slice(i + 1);
  }
  return out;
}

/** INFO memory of every primary (one entry on a single node). */
export async function redisMemory(store: RedisLogStore): Promise<RedisMemory[]> {
  const client = store.redis;
  const nodes = isCluster(client)
    ? client.nodes('master').map((n) => ({ node: `${n.options.host}:${n.options.port}`, info: () => n.info('memory') }))
    : [{ node: client.options.path ?? `${client.options.host}:${client.options.port}`, info: () => client.info('memory') }];
  const out = await Promise.all(nodes.map(async ({ node, info }) => {
    const m = parseInfo(await info());
    return { node, usedMemory: num(m.used_memory, 0), usedMemoryHuman: m.used_memory_human ?? '?', maxMemory: num(m.maxmemory, 0) };
  }));
  return out.sort((a, b) => a.node.localeCompare(b.node));
}

/** The Delta table summaries the archiver published (`<prefix>:lake-tables`), by topic; unparsable entries are skipped. */
export async function lakeTables(store: RedisLogStore): Promise<Map<string, LakeTable>> {
  const out = new Map<string, LakeTable>();
  for (const [topic, json] of Object.entries(await store.redis.hgetall(store.keyNames.lakeTables))) {
    try {
      const t = JSON.parse(json) as Partial<LakeTable>;
      if (typeof t.version !== 'number') continue;
      out.set(topic, { version: t.version, files: Number(t.files ?? 0), bytes: Number(t.bytes ?? 0), lastCommitMs: Number(t.lastCommitMs ?? 0), table: String(t.table ?? '') });
    } catch { /* not a summary */ }
  }
  return out;
}

/**
 * Every stored group (in id order) with its lag against the log ends in
 * `topics`. Reads the group keys without the coordinator's load script, so
 * no coordinator is fenced by a reader.
 */
export async function groupStatus(store: RedisLogStore, topics: TopicStatus[], groups = new RedisGroupStore(store.redis, store.keyNames.prefix)): Promise<GroupLag[]> {
  const ends = new Map<string, number>();
  for (const t of topics) for (const p of t.partitions) ends.set(`${t.name}/${p.partition}`, p.logEndOffset);
  const ids = (await groups.listGroupIds()).sort();
  return Promise.all(ids.map(async (id) => groupLag(id, await groups.peek(id), (topic, partition) => ends.get(`${topic}/${partition}`) ?? null)));
}

export async function statusReport(store: RedisLogStore, now = Date.now()): Promise<StatusReport> {
  const [brokers, topics, redis] = await Promise.all([brokerStatus(store, now), topicStatus(store), redisMemory(store)]);
  const groups = await groupStatus(store, topics);
  return { cluster: store.cluster, time: now, brokers, topics, groups, redis };
}
