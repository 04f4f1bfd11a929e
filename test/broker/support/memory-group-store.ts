// In-memory GroupStore for unit tests of the coordinator, with the Redis
// store's coordinator-epoch fencing (lua/group-load.lua, lua/group-write.lua).
// Integration tests use real Redis.
import { RunnelError } from '../../../common/errors.js';
import { CoordinatorFencedError, type CommittedOffset, type GroupStore, type LoadedGroup, type OffsetKey, type StoredGroup } from '../../../broker/src/groups/group-store.js';

/** Deep copy (structuredClone would turn Buffers into plain Uint8Arrays). */
const clone = (g: StoredGroup): StoredGroup => ({
  ...g,
  members: g.members.map((m) => ({ ...m, metadata: Buffer.from(m.metadata), assignment: Buffer.from(m.assignment) })),
});

export class MemoryGroupStore implements GroupStore {
  readonly groups = new Map<string, StoredGroup>();
  readonly offsets = new Map<string, Map<OffsetKey, CommittedOffset>>();
  readonly index = new Set<string>();
  /** group id -> epoch of the newest coordinator that loaded or wrote it */
  readonly epochs = new Map<string, number>();
  failing = false;
  saves = 0;

  private check(): void {
    if (this.failing) throw new RunnelError('STORAGE_UNAVAILABLE', 'store down');
  }

  /** Refuses an older coordinator; otherwise records `epoch` (when `claim`). */
  private fence(groupId: string, epoch: number, claim: boolean): void {
    const stored = this.epochs.get(groupId) ?? -1;
    if (stored > epoch) throw new CoordinatorFencedError(groupId, epoch, stored);
    if (claim) this.epochs.set(groupId, epoch);
  }

  async load(groupId: string, epoch: number): Promise<LoadedGroup> {
    this.check();
    const exists = this.groups.has(groupId) || (this.offsets.get(groupId)?.size ?? 0) > 0;
    this.fence(groupId, epoch, exists);
    const g = this.groups.get(groupId);
    return { group: g ? clone(g) : null, offsets: new Map(this.offsets.get(groupId) ?? []) };
  }

  async saveGroup(g: StoredGroup, epoch: number): Promise<void> {
    this.check();
    this.fence(g.groupId, epoch, true);
    this.saves++;
    this.groups.set(g.groupId, clone(g));
    this.index.add(g.groupId);
  }

  async commitOffsets(groupId: string, offsets: Map<OffsetKey, CommittedOffset>, epoch: number): Promise<void> {
    this.check();
    if (offsets.size === 0) return; // as the Redis store: no write, no fence, no index entry
    this.fence(groupId, epoch, true);
    let m = this.offsets.get(groupId);
    if (!m) this.offsets.set(groupId, (m = new Map()));
    for (const [k, v] of offsets) m.set(k, { ...v });
    this.index.add(groupId);
  }

  async deleteOffsets(groupId: string, keys: OffsetKey[], epoch: number): Promise<void> {
    this.check();
    if (keys.length === 0) return;
    this.fence(groupId, epoch, true);
    for (const k of keys) this.offsets.get(groupId)?.delete(k);
  }

  async deleteGroup(groupId: string, epoch: number): Promise<void> {
    this.check();
    this.fence(groupId, epoch, false);
    this.groups.delete(groupId);
    this.offsets.delete(groupId);
    this.epochs.delete(groupId);
    this.index.delete(groupId);
  }

  async listGroupIds(): Promise<string[]> {
    this.check();
    return [...this.index];
  }
}
