// In-memory GroupStore for unit tests of the coordinator. Integration tests use real Redis.
import { RunnelError } from '../../../broker/src/errors.js';
import type { CommittedOffset, GroupStore, LoadedGroup, OffsetKey, StoredGroup } from '../../../broker/src/groups/group-store.js';

/** Deep copy (structuredClone would turn Buffers into plain Uint8Arrays). */
const clone = (g: StoredGroup): StoredGroup => ({
  ...g,
  members: g.members.map((m) => ({ ...m, metadata: Buffer.from(m.metadata), assignment: Buffer.from(m.assignment) })),
});

export class MemoryGroupStore implements GroupStore {
  readonly groups = new Map<string, StoredGroup>();
  readonly offsets = new Map<string, Map<OffsetKey, CommittedOffset>>();
  readonly index = new Set<string>();
  failing = false;
  saves = 0;

  private check(): void {
    if (this.failing) throw new RunnelError('STORAGE_UNAVAILABLE', 'store down');
  }

  async load(groupId: string): Promise<LoadedGroup> {
    this.check();
    const g = this.groups.get(groupId);
    return { group: g ? clone(g) : null, offsets: new Map(this.offsets.get(groupId) ?? []) };
  }

  async saveGroup(g: StoredGroup): Promise<void> {
    this.check();
    this.saves++;
    this.groups.set(g.groupId, clone(g));
    this.index.add(g.groupId);
  }

  async commitOffsets(groupId: string, offsets: Map<OffsetKey, CommittedOffset>): Promise<void> {
    this.check();
    let m = this.offsets.get(groupId);
    if (!m) this.offsets.set(groupId, (m = new Map()));
    for (const [k, v] of offsets) m.set(k, { ...v });
    this.index.add(groupId);
  }

  async deleteOffsets(groupId: string, keys: OffsetKey[]): Promise<void> {
    this.check();
    for (const k of keys) this.offsets.get(groupId)?.delete(k);
  }

  async deleteGroup(groupId: string): Promise<void> {
    this.check();
    this.groups.delete(groupId);
    this.offsets.delete(groupId);
    this.index.delete(groupId);
  }

  async listGroupIds(): Promise<string[]> {
    this.check();
    return [...this.index];
  }
}
