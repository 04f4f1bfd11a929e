// Group metadata and committed offsets in Redis (key contract: docs/redis-keys.md,
// "Group coordinator keys"). Both keys of one group share the hash tag
// {<group>} (kind `g`), so they sit on one Redis Cluster shard; every load and
// write is one Lua script over those two keys (lua/group-load.lua,
// lua/group-write.lua) that fences by coordinator epoch: the meta hash keeps
// the epoch of the newest coordinator (field coordinatorEpoch) and older
// coordinators are refused. `<prefix>:groups` (no hash tag) indexes group ids
// for ListGroups and expiry and is written after the group's own keys.
import type { RedisClient as Redis } from '../../../common/redis/connect.js';
import { Keys } from './keys.js';
import { luaSource } from './lua.js';
import {
  CoordinatorFencedError, parseOffsetKey, type CommittedOffset, type GroupStore, type LoadedGroup, type OffsetKey, type StoredGroup, type StoredMember,
} from '../groups/group-store.js';
import type { TxnOffsetStore } from '../groups/txn-offset-store.js';
import type { StoredConsumerGroup } from '../groups/consumer/stored.js';
import { guard } from './stream-entries.js';

/** Group key names (from common/keys.ts). */
export class GroupKeys {
  private readonly k: Keys;
  constructor(readonly prefix: string) { this.k = new Keys(prefix); }
  get index(): string { return this.k.groupIndex; }
  meta(groupId: string): string { return this.k.groupMeta(groupId); }
  offsets(groupId: string): string { return this.k.groupOffsets(groupId); }
  txnOffsets(groupId: string): string { return this.k.groupTxnOffsets(groupId); }
  slotTxnOffsetGroups(slot: number): string { return this.k.slotTxnOffsetGroups(slot); }
}

interface MemberJson {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  /** base64 */
  metadata: string;
  /** base64 */
  assignment: string;
}

const META_FIELDS = ['protocolType', 'protocolName', 'generation', 'leader', 'stateTimestamp', 'members', 'consumer'] as const;

type GroupOp = 'save' | 'commit' | 'delete-offsets' | 'delete';
type ScriptReply = [number, ...unknown[]];
type GroupRedis = Redis & {
  groupLoad(meta: string, offsets: string, epoch: string): Promise<ScriptReply>;
  groupWrite(meta: string, offsets: string, epoch: string, op: GroupOp, ...args: string[]): Promise<ScriptReply>;
  groupTxnOffsets(meta: string, offsets: string, pending: string, epoch: string, op: 'pend' | 'complete', ...args: string[]): Promise<ScriptReply>;
};

/** HGETALL-style flat [field, value, ...] list to a record. */
function record(flat: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const a = flat as string[];
  for (let i = 0; i + 1 < a.length; i += 2) out[a[i]!] = a[i + 1]!;
  return out;
}

/** A group's `:meta` and `:offsets` hashes as the coordinator sees them. */
function parseGroup(groupId: string, meta: Record<string, string>, offs: Record<string, string>): LoadedGroup {
  const offsets = new Map<OffsetKey, CommittedOffset>();
  for (const [k, json] of Object.entries(offs)) {
    const o = JSON.parse(json) as CommittedOffset;
    offsets.set(k, { offset: o.offset, leaderEpoch: o.leaderEpoch ?? -1, metadata: o.metadata ?? '', commitTimestamp: o.commitTimestamp ?? 0 });
  }
  if (meta.generation === undefined) return { group: null, offsets };
  const members = (JSON.parse(meta.members ?? '[]') as MemberJson[]).map((m): StoredMember => ({
    memberId: m.memberId,
    groupInstanceId: m.groupInstanceId ?? null,
    clientId: m.clientId,
    clientHost: m.clientHost,
    sessionTimeoutMs: m.sessionTimeoutMs,
    rebalanceTimeoutMs: m.rebalanceTimeoutMs,
    metadata: Buffer.from(m.metadata, 'base64'),
    assignment: Buffer.from(m.assignment, 'base64'),
  }));
  return {
    group: {
      groupId,
      protocolType: meta.protocolType ?? null,
      protocolName: meta.protocolName ?? null,
      generation: Number(meta.generation),
      leader: meta.leader ?? null,
      stateTimestamp: Number(meta.stateTimestamp ?? 0),
      members,
      // A consumer-protocol group (KIP-848): its state as JSON (groups/consumer/stored.ts).
      ...(meta.consumer !== undefined ? { consumer: JSON.parse(meta.consumer) as StoredConsumerGroup } : {}),
    },
    offsets,
  };
}

export class RedisGroupStore implements GroupStore, TxnOffsetStore {
  readonly keys: GroupKeys;
  private readonly redis: GroupRedis;

  /** Shares the broker's Redis connection (ordered with everything else the broker writes). */
  constructor(redis: Redis, prefix: string) {
    this.keys = new GroupKeys(prefix);
    redis.defineCommand('groupLoad', { numberOfKeys: 2, lua: luaSource('group-load') });
    redis.defineCommand('groupWrite', { numberOfKeys: 2, lua: luaSource('group-write') });
    redis.defineCommand('groupTxnOffsets', { numberOfKeys: 3, lua: luaSource('group-txn-offsets') });
    this.redis = redis as GroupRedis;
  }

  /** One fenced write of the group's keys; CoordinatorFencedError when a newer coordinator owns the group. */
  private async write(groupId: string, epoch: number, op: GroupOp, args: string[]): Promise<void> {
    const r = await guard(this.redis.groupWrite(this.keys.meta(groupId), this.keys.offsets(groupId), String(epoch), op, ...args));
    if (r[0] !== 1) throw new CoordinatorFencedError(groupId, epoch, Number(r[1]));
  }

  async load(groupId: string, epoch: number): Promise<LoadedGroup> {
    const r = await guard(this.redis.groupLoad(this.keys.meta(groupId), this.keys.offsets(groupId), String(epoch)));
    if (r[0] !== 1) throw new CoordinatorFencedError(groupId, epoch, Number(r[1]));
    return parseGroup(groupId, record(r[1]), record(r[2]));
  }

  /**
   * The group as stored, read without the load script: no coordinator epoch
   * is recorded, so a reader (`runnel status`, the web console) never fences
   * the group's coordinator. Two reads of one hash tag.
   */
  async peek(groupId: string): Promise<LoadedGroup> {
    const [meta, offsets] = await Promise.all([
      guard(this.redis.hgetall(this.keys.meta(groupId))),
      guard(this.redis.hgetall(this.keys.offsets(groupId))),
    ]);
    return parseGroup(groupId, meta, offsets);
  }

  async saveGroup(g: StoredGroup, epoch: number): Promise<void> {
    const values: Record<string, string> = {
      generation: String(g.generation),
      stateTimestamp: String(g.stateTimestamp),
      members: JSON.stringify(g.members.map((m): MemberJson => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        sessionTimeoutMs: m.sessionTimeoutMs,
        rebalanceTimeoutMs: m.rebalanceTimeoutMs,
        metadata: m.metadata.toString('base64'),
        assignment: m.assignment.toString('base64'),
      }))),
    };
    if (g.protocolType !== null) values.protocolType = g.protocolType;
    if (g.protocolName !== null) values.protocolName = g.protocolName;
    if (g.leader !== null) values.leader = g.leader;
    if (g.consumer) values.consumer = JSON.stringify(g.consumer);
    const absent = META_FIELDS.filter((f) => values[f] === undefined);
    await this.write(g.groupId, epoch, 'save', [String(absent.length), ...absent, ...Object.entries(values).flat()]);
    await guard(this.redis.sadd(this.keys.index, g.groupId));
  }

  async commitOffsets(groupId: string, offsets: Map<OffsetKey, CommittedOffset>, epoch: number): Promise<void> {
    if (offsets.size === 0) return;
    const args: string[] = [];
    for (const [k, o] of offsets) {
      args.push(k, JSON.stringify({ offset: o.offset, leaderEpoch: o.leaderEpoch, metadata: o.metadata, commitTimestamp: o.commitTimestamp }));
    }
    await this.write(groupId, epoch, 'commit', args);
    await guard(this.redis.sadd(this.keys.index, groupId));
  }

  async deleteOffsets(groupId: string, keys: OffsetKey[], epoch: number): Promise<void> {
    if (keys.length === 0) return;
    await this.write(groupId, epoch, 'delete-offsets', keys);
  }

  async deleteGroup(groupId: string, epoch: number): Promise<void> {
    await this.write(groupId, epoch, 'delete', []);
    await guard(this.redis.srem(this.keys.index, groupId));
  }

  // ---- pending transactional offset commits (groups/txn-offsets.ts)

  async storePending(groupId: string, slot: number, producerId: number, offsets: Map<OffsetKey, CommittedOffset>, epoch: number): Promise<void> {
    const args: string[] = [];
    for (const [k, o] of offsets) args.push(`${producerId}:${k}`, JSON.stringify(o));
    const r = await guard(this.redis.groupTxnOffsets(this.keys.meta(groupId), this.keys.offsets(groupId), this.keys.txnOffsets(groupId), String(epoch), 'pend', ...args));
    if (r[0] !== 1) throw new CoordinatorFencedError(groupId, epoch, Number(r[1]));
    await guard(this.redis.sadd(this.keys.slotTxnOffsetGroups(slot), `${producerId}:${groupId}`));
    await guard(this.redis.sadd(this.keys.index, groupId));
  }

  async pendingGroups(slot: number, producerId: number): Promise<string[]> {
    const prefix = `${producerId}:`;
    return (await guard(this.redis.smembers(this.keys.slotTxnOffsetGroups(slot)))).filter((m) => m.startsWith(prefix)).map((m) => m.slice(prefix.length));
  }

  async complete(groupId: string, slot: number, producerId: number, commit: boolean, epoch: number): Promise<Map<OffsetKey, CommittedOffset>> {
    const r = await guard(this.redis.groupTxnOffsets(this.keys.meta(groupId), this.keys.offsets(groupId), this.keys.txnOffsets(groupId), String(epoch), 'complete', String(producerId), commit ? '1' : '0'));
    if (r[0] !== 1) throw new CoordinatorFencedError(groupId, epoch, Number(r[1]));
    await guard(this.redis.srem(this.keys.slotTxnOffsetGroups(slot), `${producerId}:${groupId}`));
    const out = new Map<OffsetKey, CommittedOffset>();
    for (const [k, json] of Object.entries(record(r[1]))) out.set(k, JSON.parse(json) as CommittedOffset);
    return out;
  }

  async pendingPartitions(groupId: string): Promise<Set<OffsetKey>> {
    const fields = await guard(this.redis.hkeys(this.keys.txnOffsets(groupId)));
    return new Set(fields.map((f) => { const k = f.slice(f.indexOf(':') + 1); const tp = parseOffsetKey(k); return `${tp.topic}/${tp.partition}`; }));
  }

  async listGroupIds(): Promise<string[]> {
    return guard(this.redis.smembers(this.keys.index));
  }
}
