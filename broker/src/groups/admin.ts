// ListGroups, DescribeGroups and DeleteGroups.
import { ErrorCode } from '../../../common/errors.js';
import type { GroupDescription } from './requests.js';
import { EMPTY, type Group } from './group.js';
import type { GroupState } from './group-state.js';
import type { GroupRegistry } from './group-registry.js';
import type { ConsumerGroupState } from './consumer/consumer-group.js';
import { isNotCoordinator, storeErrorCode } from './replies.js';

export interface ListedGroup {
  groupId: string;
  protocolType: string;
  /** A classic group's GroupState, or a consumer group's Empty, Assigning, Reconciling, Stable. */
  state: GroupState | ConsumerGroupState;
  type: 'classic' | 'consumer';
}

export class GroupAdmin {
  constructor(private readonly reg: GroupRegistry) {}

  /** Each group with its type (ListGroups v5): classic, or consumer for consumer-protocol groups (KIP-848). */
  async listGroups(statesFilter: string[] = []): Promise<ListedGroup[]> {
    const ids = await this.reg.knownIds();
    const wanted = new Set(statesFilter.map((s) => s.toLowerCase()));
    const local = [...ids].filter((id) => this.reg.isLocal(id));
    // A group a newer coordinator has taken meanwhile is that coordinator's to list.
    const groups = await Promise.all(local.map((id) => this.reg.getGroup(id).catch((e: unknown) => {
      if (isNotCoordinator(e)) return null;
      throw e;
    })));
    const out: ListedGroup[] = [];
    for (const g of groups) {
      if (!g || g.is('Dead')) continue;
      // Kafka lists a consumer-protocol group with protocol type "consumer".
      const listed: ListedGroup = g.modern
        ? { groupId: g.groupId, protocolType: 'consumer', state: g.modern.state, type: 'consumer' }
        : { groupId: g.groupId, protocolType: g.protocolType ?? '', state: g.state, type: 'classic' };
      if (wanted.size > 0 && !wanted.has(listed.state.toLowerCase())) continue;
      out.push(listed);
    }
    return out.sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0));
  }

  async describeGroup(groupId: string): Promise<GroupDescription> {
    const g = await this.reg.getGroup(groupId);
    // Kafka (up to DescribeGroups v5): a consumer-protocol group is described as a group that does not exist, Dead.
    if (!g || g.modern) return { groupId, state: 'Dead', protocolType: '', protocolData: '', members: [] };
    const stable = g.is('Stable');
    return {
      groupId,
      state: g.state,
      protocolType: g.protocolType ?? '',
      protocolData: stable ? g.protocolName ?? '' : '',
      members: [...g.members.values()].map((m) => ({
        memberId: m.memberId, groupInstanceId: m.groupInstanceId, clientId: m.clientId, clientHost: m.clientHost,
        metadata: stable ? m.metadataFor(g.protocolName) : EMPTY,
        assignment: stable ? m.assignment : EMPTY,
      })),
    };
  }

  /** DeleteGroups: only empty groups go, with their offsets. */
  async deleteGroup(groupId: string): Promise<number> {
    let g: Group | null;
    try {
      g = await this.reg.getGroup(groupId);
    } catch (e) {
      return storeErrorCode(e);
    }
    if (!g || g.is('Dead')) return ErrorCode.GROUP_ID_NOT_FOUND;
    if (!g.is('Empty') || (g.modern !== null && g.modern.members.size > 0)) return ErrorCode.NON_EMPTY_GROUP;
    const since = g.stateTimestamp;
    const offsets = [...g.offsets.keys()];
    g.transition('Dead', this.reg.clock.now());
    try {
      await this.reg.write(g, (epoch) => this.reg.store.deleteGroup(groupId, epoch));
    } catch (e) {
      g.reviveAfterFailedDelete(since);
      return storeErrorCode(e);
    }
    this.reg.cancelTimers(g);
    this.reg.forget(g);
    await this.reg.mirror?.removed(groupId, offsets);
    return ErrorCode.NONE;
  }
}
