// Group metadata and committed offsets in Redis (key contract: docs/redis-keys.md,
// "Group coordinator keys"). Both keys of one group share the hash tag
// {g/<group>}, so they sit on one Redis Cluster shard and can be written in
// one MULTI; `<prefix>:groups` indexes group ids for ListGroups and expiry.
import type { Redis } from 'ioredis';
import { RunnelError } from '../../errors.js';
import type { CommittedOffset, GroupStore, LoadedGroup, OffsetKey, StoredGroup, StoredMember } from '../../groups/group-store.js';

export class GroupKeys {
  constructor(readonly prefix: string) {}
  get index(): string { return `${this.prefix}:groups`; }
  tag(groupId: string): string { return `{g/${groupId}}`; }
  meta(groupId: string): string { return `${this.prefix}:${this.tag(groupId)}:meta`; }
  offsets(groupId: string): string { return `${this.prefix}:${this.tag(groupId)}:offsets`; }
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

const META_FIELDS = ['protocolType', 'protocolName', 'generation', 'leader', 'stateTimestamp', 'members'] as const;

export class RedisGroupStore implements GroupStore {
  readonly keys: GroupKeys;

  /** Shares the broker's Redis connection (ordered with everything else the broker writes). */
  constructor(private readonly redis: Redis, prefix: string) {
    this.keys = new GroupKeys(prefix);
  }

  async load(groupId: string): Promise<LoadedGroup> {
    const [meta, offs] = await guard(Promise.all([this.redis.hgetall(this.keys.meta(groupId)), this.redis.hgetall(this.keys.offsets(groupId))]));
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
      },
      offsets,
    };
  }

  async saveGroup(g: StoredGroup): Promise<void> {
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
    const absent = META_FIELDS.filter((f) => values[f] === undefined);
    const key = this.keys.meta(g.groupId);
    const tx = this.redis.multi();
    if (absent.length > 0) tx.hdel(key, ...absent);
    tx.hset(key, values);
    await guard(Promise.all([tx.exec().then(checkExec), this.redis.sadd(this.keys.index, g.groupId)]));
  }

  async commitOffsets(groupId: string, offsets: Map<OffsetKey, CommittedOffset>): Promise<void> {
    if (offsets.size === 0) return;
    const values: Record<string, string> = {};
    for (const [k, o] of offsets) {
      values[k] = JSON.stringify({ offset: o.offset, leaderEpoch: o.leaderEpoch, metadata: o.metadata, commitTimestamp: o.commitTimestamp });
    }
    await guard(Promise.all([this.redis.hset(this.keys.offsets(groupId), values), this.redis.sadd(this.keys.index, groupId)]));
  }

  async deleteOffsets(groupId: string, keys: OffsetKey[]): Promise<void> {
    if (keys.length === 0) return;
    await guard(this.redis.hdel(this.keys.offsets(groupId), ...keys));
  }

  async deleteGroup(groupId: string): Promise<void> {
    await guard(Promise.all([this.redis.del(this.keys.meta(groupId), this.keys.offsets(groupId)), this.redis.srem(this.keys.index, groupId)]));
  }

  async listGroupIds(): Promise<string[]> {
    return guard(this.redis.smembers(this.keys.index));
  }
}

function checkExec(r: Array<[Error | null, unknown]> | null): void {
  if (r === null) throw new Error('MULTI aborted');
  for (const [err] of r) if (err) throw err;
}

async function guard<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    if (e instanceof RunnelError) throw e;
    throw new RunnelError('STORAGE_UNAVAILABLE', e instanceof Error ? e.message : String(e), { cause: e });
  }
}
