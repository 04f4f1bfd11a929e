// An in-memory SharePartitionStore with the Redis store's behaviour (the
// storage contract runs over both): leader-epoch fencing, versions moved by
// every write and administrative change.
import {
  FencedStateEpochError, ShareCoordinatorFencedError, StaleShareStateError, type LoadedShareState, type SharePartitionKey, type SharePartitionStore, type ShareGroupStore,
} from '../../../broker/src/groups/share/share-store.js';
import type { StoredShareGroup } from '../../../broker/src/groups/share/share-group.js';
import type { StoredSharePartition } from '../../../broker/src/groups/share/share-partition.js';

interface Row { leaderEpoch: number; version: number; state: string | null }

export class MemoryShareStore implements SharePartitionStore, ShareGroupStore {
  private readonly rows = new Map<string, Row>();
  private readonly metas = new Map<string, { coordinatorEpoch: number; group: string | null }>();
  private readonly groups = new Set<string>();
  /** Saves made (tests count them). */
  saves = 0;

  private id(k: SharePartitionKey): string {
    return `${k.groupId}\u0000${k.topicId}/${k.partition}`;
  }

  async load(k: SharePartitionKey, leaderEpoch: number): Promise<LoadedShareState> {
    const r = this.rows.get(this.id(k));
    if (r && r.leaderEpoch > leaderEpoch) throw new FencedStateEpochError(k, leaderEpoch, r.leaderEpoch);
    if (r && r.state !== null) r.leaderEpoch = leaderEpoch;
    return { state: r?.state ? JSON.parse(r.state) as StoredSharePartition : null, version: r?.version ?? 0 };
  }

  async save(k: SharePartitionKey, leaderEpoch: number, state: StoredSharePartition, version: number): Promise<number> {
    const r = this.rows.get(this.id(k)) ?? { leaderEpoch: -1, version: 0, state: null };
    if (r.leaderEpoch > leaderEpoch) throw new FencedStateEpochError(k, leaderEpoch, r.leaderEpoch);
    if (r.version !== version) throw new StaleShareStateError(k);
    this.rows.set(this.id(k), { leaderEpoch, version: version + 1, state: JSON.stringify(state) });
    this.groups.add(k.groupId);
    this.saves++;
    return version + 1;
  }

  async read(k: SharePartitionKey): Promise<StoredSharePartition | null> {
    const s = this.rows.get(this.id(k))?.state;
    return s ? JSON.parse(s) as StoredSharePartition : null;
  }

  async overwrite(k: SharePartitionKey, state: StoredSharePartition | null): Promise<void> {
    const r = this.rows.get(this.id(k)) ?? { leaderEpoch: -1, version: 0, state: null };
    this.rows.set(this.id(k), { leaderEpoch: r.leaderEpoch, version: r.version + 1, state: state ? JSON.stringify(state) : null });
    if (state) this.groups.add(k.groupId);
  }

  async listPartitions(groupId: string): Promise<Array<{ topicId: string; partition: number }>> {
    const out: Array<{ topicId: string; partition: number }> = [];
    for (const [id, r] of this.rows) {
      const [g, tp] = id.split('\u0000') as [string, string];
      if (g !== groupId || r.state === null) continue;
      const i = tp.lastIndexOf('/');
      out.push({ topicId: tp.slice(0, i), partition: Number(tp.slice(i + 1)) });
    }
    return out;
  }

  async loadGroup(groupId: string, coordinatorEpoch: number): Promise<StoredShareGroup | null> {
    const m = this.metas.get(groupId);
    if (m && m.coordinatorEpoch > coordinatorEpoch) throw new ShareCoordinatorFencedError(groupId, coordinatorEpoch, m.coordinatorEpoch);
    if (m?.group) m.coordinatorEpoch = coordinatorEpoch;
    return m?.group ? JSON.parse(m.group) as StoredShareGroup : null;
  }

  async saveGroup(groupId: string, coordinatorEpoch: number, group: StoredShareGroup | null): Promise<void> {
    const m = this.metas.get(groupId);
    if (m && m.coordinatorEpoch > coordinatorEpoch) throw new ShareCoordinatorFencedError(groupId, coordinatorEpoch, m.coordinatorEpoch);
    if (group) {
      this.metas.set(groupId, { coordinatorEpoch, group: JSON.stringify(group) });
      this.groups.add(groupId);
    } else this.metas.delete(groupId);
  }

  async listGroupIds(): Promise<string[]> {
    return [...this.groups];
  }

  async forgetGroup(groupId: string): Promise<void> {
    this.groups.delete(groupId);
  }
}
