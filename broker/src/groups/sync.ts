// SyncGroup: members of the current generation wait for the leader's
// assignment, which is stored before anyone gets it.
import { ErrorCode } from '../../../common/errors.js';
import type { SyncRequest } from './requests.js';
import { EMPTY, type Group, type SyncResult } from './group.js';
import type { GroupRegistry } from './group-registry.js';
import type { Rebalancer } from './rebalance.js';
import { invokeSync, storeErrorCode, syncError } from './replies.js';
import type { ClassicBridge } from './classic-bridge.js';

export class SyncFlow {
  constructor(private readonly reg: GroupRegistry, private readonly rb: Rebalancer, private readonly bridge: ClassicBridge) {}

  async sync(req: SyncRequest): Promise<SyncResult> {
    if (!req.groupId) return syncError(ErrorCode.INVALID_GROUP_ID);
    let g: Group | null;
    try {
      g = await this.reg.getGroup(req.groupId);
    } catch (e) {
      return syncError(storeErrorCode(e));
    }
    if (!g) return syncError(ErrorCode.UNKNOWN_MEMBER_ID);
    if (g.is('Dead')) return syncError(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    if (g.modern) return this.bridge.sync(g, req);
    const err = g.validateMember(req.memberId, req.groupInstanceId);
    if (err !== null) return syncError(err);
    if (req.generationId !== g.generation) return syncError(ErrorCode.ILLEGAL_GENERATION);
    if (req.protocolType !== null && req.protocolType !== g.protocolType) return syncError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    if (req.protocolName !== null && req.protocolName !== g.protocolName) return syncError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    const m = g.members.get(req.memberId)!;
    switch (g.state) {
      case 'Empty':
        return syncError(ErrorCode.UNKNOWN_MEMBER_ID);
      case 'PreparingRebalance':
        return syncError(ErrorCode.REBALANCE_IN_PROGRESS);
      case 'Stable':
        this.rb.removePendingSync(g, m.memberId);
        this.rb.scheduleSession(g, m, m.sessionTimeoutMs);
        return { errorCode: ErrorCode.NONE, protocolType: g.protocolType, protocolName: g.protocolName, assignment: m.assignment };
      default:
        break;
    }
    // CompletingRebalance: wait for the leader's assignment.
    const group = g;
    return new Promise<SyncResult>((resolve) => {
      invokeSync(m, syncError(ErrorCode.REBALANCE_IN_PROGRESS));
      m.syncWaiter = resolve;
      this.rb.removePendingSync(group, m.memberId);
      if (!group.isLeader(m.memberId)) return;
      const assignment = new Map<string, Buffer>();
      for (const a of req.assignments) assignment.set(a.memberId, a.assignment);
      const gen = group.generation;
      const still = (): boolean => this.reg.alive(group) && group.is('CompletingRebalance') && group.generation === gen;
      this.reg.saveGroup(group, this.reg.snapshot(group, assignment)).then(
        () => {
          if (!still()) return;
          for (const x of group.members.values()) {
            x.assignment = assignment.get(x.memberId) ?? EMPTY;
            invokeSync(x, { errorCode: ErrorCode.NONE, protocolType: group.protocolType, protocolName: group.protocolName, assignment: x.assignment });
            this.rb.scheduleSession(group, x, x.sessionTimeoutMs);
          }
          group.transition('Stable', this.reg.clock.now());
          this.reg.logger?.info('group stable', { group: group.groupId, generation: gen, members: group.size });
        },
        (e) => {
          if (!still()) return;
          this.reg.logger?.warn('storing group assignment failed', { group: group.groupId, err: String(e) });
          this.rb.resetAndPropagateAssignmentError(group, storeErrorCode(e));
          this.rb.maybePrepareRebalance(group, 'storing the assignment failed');
        },
      );
    });
  }
}
