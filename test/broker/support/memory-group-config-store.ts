// GroupConfigStore in memory, for unit tests.
import type { GroupConfigStore } from '../../../broker/src/groups/config/group-config-store.js';

export class MemoryGroupConfigStore implements GroupConfigStore {
  private readonly byGroup = new Map<string, Record<string, string>>();
  get(groupId: string): Promise<Record<string, string>> {
    return Promise.resolve({ ...this.byGroup.get(groupId) });
  }
  replace(groupId: string, configs: Readonly<Record<string, string>>): Promise<void> {
    if (Object.keys(configs).length === 0) this.byGroup.delete(groupId);
    else this.byGroup.set(groupId, { ...configs });
    return Promise.resolve();
  }
}
