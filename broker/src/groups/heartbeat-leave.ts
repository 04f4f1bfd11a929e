// Heartbeat keeps a member's session alive; LeaveGroup removes members
// (or, by group.instance.id alone, static members administratively).
import { ErrorCode } from '../../../common/errors.js';
import type { MemberRef } from './requests.js';
import type { Group } from './group.js';
import type { GroupRegistry } from './group-registry.js';
import type { Rebalancer } from './rebalance.js';
import { storeErrorCode } from './replies.js';
import type { ClassicBridge } from './classic-bridge.js';

export class MembershipFlow {
  constructor(private readonly reg: GroupRegistry, private readonly rb: Rebalancer, private readonly bridge: ClassicBridge) {}

  async heartbeat(groupId: string, generationId: number, memberId: string, groupInstanceId: string | null): Promise<number> {
    if (!groupId) return ErrorCode.INVALID_GROUP_ID;
    let g: Group | null;
    try {
      g = await this.reg.getGroup(groupId);
    } catch (e) {
      return storeErrorCode(e);
    }
    if (!g) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (g.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (g.modern) return this.bridge.heartbeat(g, generationId, memberId, groupInstanceId);
    const err = g.validateMember(memberId, groupInstanceId);
    if (err !== null) return err;
    if (generationId !== g.generation) return ErrorCode.ILLEGAL_GENERATION;
    const m = g.members.get(memberId)!;
    switch (g.state) {
      case 'Empty':
        return ErrorCode.UNKNOWN_MEMBER_ID;
      case 'PreparingRebalance':
        this.rb.scheduleSession(g, m, m.sessionTimeoutMs);
        return ErrorCode.REBALANCE_IN_PROGRESS;
      default:
        this.rb.scheduleSession(g, m, m.sessionTimeoutMs);
        return ErrorCode.NONE;
    }
  }

  async leave(groupId: string, members: MemberRef[]): Promise<{ errorCode: number; members: Array<MemberRef & { errorCode: number }> }> {
    if (!groupId) return { errorCode: ErrorCode.INVALID_GROUP_ID, members: [] };
    let g: Group | null;
    try {
      g = await this.reg.getGroup(groupId);
    } catch (e) {
      return { errorCode: storeErrorCode(e), members: [] };
    }
    if (!g) return { errorCode: ErrorCode.NONE, members: members.map((x) => ({ ...x, errorCode: ErrorCode.UNKNOWN_MEMBER_ID })) };
    if (g.is('Dead')) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, members: [] };
    if (g.modern) return { errorCode: ErrorCode.NONE, members: this.bridge.leave(g, members) };
    const group = g;
    const out = members.map((x) => {
      let code: number = ErrorCode.NONE;
      if (x.memberId === '') {
        // Administrative removal of a static member by its group.instance.id.
        const id = x.groupInstanceId === null ? undefined : group.staticMembers.get(x.groupInstanceId);
        if (id === undefined) code = ErrorCode.UNKNOWN_MEMBER_ID;
        else this.rb.removeMemberAndUpdateGroup(group, group.members.get(id)!, 'removed by group.instance.id');
      } else if (group.pendingMembers.has(x.memberId)) {
        group.pendingMembers.get(x.memberId)!();
        group.pendingMembers.delete(x.memberId);
        if (group.is('PreparingRebalance')) this.rb.tryCompleteJoin(group);
      } else {
        const err = group.validateMember(x.memberId, x.groupInstanceId);
        if (err !== null) code = err;
        else this.rb.removeMemberAndUpdateGroup(group, group.members.get(x.memberId)!, 'left the group');
      }
      return { ...x, errorCode: code };
    });
    return { errorCode: ErrorCode.NONE, members: out };
  }
}
