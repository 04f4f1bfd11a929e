// The rebalance flow: member sessions, PreparingRebalance (with the initial
// rebalance delay) -> CompletingRebalance (or Empty when nobody is left), and
// expiry of members that never send SyncGroup. The states and the transitions
// allowed between them are group-state.ts; SyncGroup (sync.ts) moves the group
// on to Stable.
import { ErrorCode } from '../../../common/errors.js';
import { EMPTY, type Group, type Member } from './group.js';
import type { GroupRegistry } from './group-registry.js';
import { invokeJoin, invokeSync, joinError, syncError } from './replies.js';

export class Rebalancer {
  constructor(private readonly reg: GroupRegistry) {}

  /** Starts the session timers of a group just loaded from the store. */
  resumeSessions(g: Group): void {
    for (const m of g.members.values()) this.scheduleSession(g, m, m.sessionTimeoutMs);
  }

  scheduleSession(g: Group, m: Member, timeoutMs: number): void {
    m.sessionTimer?.();
    m.sessionTimer = this.reg.clock.schedule(timeoutMs, () => {
      m.sessionTimer = null;
      if (!this.reg.alive(g) || g.members.get(m.memberId) !== m) return;
      // A member blocked in JoinGroup (once it belongs to a generation) or SyncGroup is alive.
      if (m.awaitingSync || (m.awaitingJoin && !m.isNew)) {
        this.scheduleSession(g, m, m.sessionTimeoutMs);
        return;
      }
      this.removeMemberAndUpdateGroup(g, m, m.isNew ? 'did not complete joining in time' : 'session timed out');
    });
  }

  removeMemberAndUpdateGroup(g: Group, m: Member, reason: string): void {
    this.reg.logger?.info('member removed', { group: g.groupId, member: m.memberId, reason });
    invokeJoin(m, joinError('', ErrorCode.UNKNOWN_MEMBER_ID));
    invokeSync(m, syncError(ErrorCode.UNKNOWN_MEMBER_ID));
    m.sessionTimer?.();
    m.sessionTimer = null;
    g.remove(m.memberId);
    if (g.is('Stable') || g.is('CompletingRebalance')) this.maybePrepareRebalance(g, `member ${m.memberId} ${reason}`);
    else if (g.is('PreparingRebalance')) this.tryCompleteJoin(g);
  }

  maybePrepareRebalance(g: Group, reason: string): void {
    if (g.is('Stable') || g.is('CompletingRebalance') || g.is('Empty')) this.prepareRebalance(g, reason);
  }

  prepareRebalance(g: Group, reason: string): void {
    if (g.is('CompletingRebalance')) this.resetAndPropagateAssignmentError(g, ErrorCode.REBALANCE_IN_PROGRESS);
    this.cancelSyncTimer(g);
    const initial = g.is('Empty');
    g.joinTimer?.();
    g.joinTimer = null;
    g.transition('PreparingRebalance', this.reg.clock.now());
    this.reg.logger?.info('preparing rebalance', { group: g.groupId, generation: g.generation, members: g.size, reason });
    if (initial) {
      const delay = this.reg.settings.initialRebalanceDelayMs;
      g.initialJoin = { remainingMs: Math.max(g.rebalanceTimeoutMs() - delay, 0) };
      g.joinTimer = this.reg.clock.schedule(delay, () => this.onInitialDelay(g));
    } else {
      g.initialJoin = null;
      g.joinTimer = this.reg.clock.schedule(g.rebalanceTimeoutMs(), () => this.completeJoin(g));
      this.tryCompleteJoin(g);
    }
  }

  /** group.initial.rebalance.delay.ms: keep waiting while new members arrive, up to the rebalance timeout. */
  private onInitialDelay(g: Group): void {
    g.joinTimer = null;
    if (!this.reg.alive(g) || !g.is('PreparingRebalance') || !g.initialJoin) return;
    const remaining = g.initialJoin.remainingMs;
    if (g.newMemberAdded && remaining !== 0) {
      g.newMemberAdded = false;
      const delay = Math.min(this.reg.settings.initialRebalanceDelayMs, remaining);
      g.initialJoin = { remainingMs: Math.max(remaining - this.reg.settings.initialRebalanceDelayMs, 0) };
      g.joinTimer = this.reg.clock.schedule(delay, () => this.onInitialDelay(g));
      return;
    }
    this.completeJoin(g);
  }

  tryCompleteJoin(g: Group): void {
    if (g.is('PreparingRebalance') && !g.initialJoin && g.allMembersJoined()) this.completeJoin(g);
  }

  private completeJoin(g: Group): void {
    if (!this.reg.alive(g) || !g.is('PreparingRebalance')) return;
    g.joinTimer?.();
    g.joinTimer = null;
    g.initialJoin = null;
    g.newMemberAdded = false;
    // Dynamic members that did not rejoin in time are out; static members stay until their session expires.
    for (const m of [...g.members.values()]) {
      if (!m.awaitingJoin && m.groupInstanceId === null) {
        m.sessionTimer?.();
        g.remove(m.memberId);
        invokeSync(m, syncError(ErrorCode.UNKNOWN_MEMBER_ID));
      }
    }
    if (!this.electJoinedLeader(g) && g.size > 0) {
      // Nobody rejoined (only absent static members are left): wait another rebalance timeout.
      g.joinTimer = this.reg.clock.schedule(g.rebalanceTimeoutMs(), () => this.completeJoin(g));
      return;
    }
    const now = this.reg.clock.now();
    g.generation++;
    if (g.size > 0) {
      g.protocolName = g.selectProtocol();
      g.subscribed = g.computeSubscribedTopics();
      g.transition('CompletingRebalance', now);
    } else {
      g.protocolName = null;
      g.subscribed = null;
      g.transition('Empty', now);
    }
    if (g.is('Empty')) {
      this.reg.logger?.info('group is empty', { group: g.groupId, generation: g.generation });
      this.reg.persistInBackground(g);
      return;
    }
    this.reg.logger?.info('rebalance completed join', { group: g.groupId, generation: g.generation, members: g.size, protocol: g.protocolName });
    const members = g.currentMemberMetadata();
    for (const m of g.members.values()) {
      const isLeader = g.isLeader(m.memberId);
      invokeJoin(m, {
        errorCode: ErrorCode.NONE, generationId: g.generation, protocolType: g.protocolType, protocolName: g.protocolName,
        leader: g.leader ?? '', skipAssignment: false, memberId: m.memberId, members: isLeader ? members : [],
      });
      this.scheduleSession(g, m, m.sessionTimeoutMs);
      m.isNew = false;
      g.pendingSync.add(m.memberId);
    }
    const gen = g.generation;
    g.syncTimer = this.reg.clock.schedule(g.rebalanceTimeoutMs(), () => this.expirePendingSync(g, gen));
  }

  /** If the leader did not rejoin, any member that did becomes leader. False when nobody rejoined. */
  private electJoinedLeader(g: Group): boolean {
    if (g.leader === null) return false;
    if (g.members.get(g.leader)?.awaitingJoin) return true;
    for (const m of g.members.values()) {
      if (m.awaitingJoin) {
        g.leader = m.memberId;
        return true;
      }
    }
    return false;
  }

  /** Members that never sent SyncGroup within the rebalance timeout are removed and the group rebalances. */
  private expirePendingSync(g: Group, generation: number): void {
    g.syncTimer = null;
    if (!this.reg.alive(g) || g.generation !== generation) return;
    if (!(g.is('CompletingRebalance') || g.is('Stable')) || g.pendingSync.size === 0) return;
    const late = [...g.pendingSync];
    this.reg.logger?.info('members failed to sync', { group: g.groupId, generation, members: late });
    for (const id of late) {
      const m = g.members.get(id);
      if (!m) continue;
      m.sessionTimer?.();
      invokeJoin(m, joinError(id, ErrorCode.UNKNOWN_MEMBER_ID));
      g.remove(id);
    }
    this.prepareRebalance(g, 'pending members did not sync');
  }

  removePendingSync(g: Group, memberId: string): void {
    g.pendingSync.delete(memberId);
    if (g.pendingSync.size === 0) this.cancelSyncTimer(g);
  }

  private cancelSyncTimer(g: Group): void {
    g.syncTimer?.();
    g.syncTimer = null;
    g.pendingSync.clear();
  }

  resetAndPropagateAssignmentError(g: Group, errorCode: number): void {
    for (const m of g.members.values()) {
      m.assignment = EMPTY;
      invokeSync(m, syncError(errorCode));
    }
  }
}
