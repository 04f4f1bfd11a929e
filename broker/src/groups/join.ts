// JoinGroup: new dynamic members (KIP-394 member ids), static members
// (KIP-345, a rejoin with an unknown member id fences the old incarnation;
// KIP-814 skip assignment) and rejoins of current members.
import { randomUUID } from 'node:crypto';
import { ErrorCode } from '../../../common/errors.js';
import { NEW_MEMBER_JOIN_TIMEOUT_MS } from './options.js';
import type { JoinRequest } from './requests.js';
import { Member, type Group, type JoinResult } from './group.js';
import type { GroupRegistry } from './group-registry.js';
import type { Rebalancer } from './rebalance.js';
import { invokeJoin, invokeSync, joinError, storeErrorCode, syncError } from './replies.js';
import type { ClassicBridge } from './classic-bridge.js';

export class JoinFlow {
  constructor(private readonly reg: GroupRegistry, private readonly rb: Rebalancer, private readonly bridge: ClassicBridge) {}

  async join(req: JoinRequest): Promise<JoinResult> {
    if (!req.groupId) return joinError(req.memberId, ErrorCode.INVALID_GROUP_ID);
    if (req.sessionTimeoutMs < this.reg.settings.minSessionTimeoutMs || req.sessionTimeoutMs > this.reg.settings.maxSessionTimeoutMs) {
      return joinError(req.memberId, ErrorCode.INVALID_SESSION_TIMEOUT);
    }
    const unknown = req.memberId === '';
    let group: Group | null;
    try {
      group = unknown ? await this.reg.getOrCreate(req.groupId) : await this.reg.getGroup(req.groupId);
    } catch (e) {
      return joinError(req.memberId, storeErrorCode(e));
    }
    if (!group) return joinError(req.memberId, ErrorCode.UNKNOWN_MEMBER_ID);
    const g = group;
    if (g.modern) {
      // A consumer-protocol group (KIP-848) with members takes classic members (classic-bridge.ts); an empty one becomes classic again.
      if (g.modern.members.size > 0) return this.bridge.join(g, req);
      g.modern = null;
    }
    if (!this.acceptJoiningMember(g, req.memberId)) return joinError(req.memberId, ErrorCode.GROUP_MAX_SIZE_REACHED);
    const result = new Promise<JoinResult>((resolve) => {
      if (unknown) this.joinNewMember(g, req, resolve);
      else this.joinCurrentMember(g, req, resolve);
    });
    if (g.is('PreparingRebalance')) this.rb.tryCompleteJoin(g);
    const r = await result;
    if (r.errorCode !== ErrorCode.NONE && r.errorCode !== ErrorCode.MEMBER_ID_REQUIRED) this.reg.dropIfUnused(g);
    return r;
  }

  private acceptJoiningMember(g: Group, memberId: string): boolean {
    const max = this.reg.settings.maxSize;
    switch (g.state) {
      case 'Empty':
      case 'Dead':
        return true;
      case 'PreparingRebalance': {
        const m = g.members.get(memberId);
        if (m?.awaitingJoin) return true;
        let awaiting = 0;
        for (const x of g.members.values()) if (x.awaitingJoin) awaiting++;
        return awaiting < max;
      }
      default:
        return g.members.has(memberId) || g.size < max;
    }
  }

  private joinNewMember(g: Group, req: JoinRequest, resolve: (r: JoinResult) => void): void {
    if (g.is('Dead')) return resolve(joinError(req.memberId, ErrorCode.COORDINATOR_NOT_AVAILABLE));
    if (!g.supportsProtocols(req.protocolType, req.protocols)) return resolve(joinError(req.memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    const newId = `${req.groupInstanceId ?? req.clientId}-${randomUUID()}`;
    if (req.groupInstanceId !== null) return this.joinStaticMember(g, req, newId, resolve);
    if (req.requireKnownMemberId) {
      // KIP-394: hand out the id, expect the member back with it within its session timeout.
      g.pendingMembers.get(newId)?.();
      g.pendingMembers.set(newId, this.reg.clock.schedule(req.sessionTimeoutMs, () => {
        if (!this.reg.alive(g) || !g.pendingMembers.delete(newId)) return;
        if (g.is('PreparingRebalance')) this.rb.tryCompleteJoin(g);
        this.reg.dropIfUnused(g);
      }));
      return resolve(joinError(newId, ErrorCode.MEMBER_ID_REQUIRED));
    }
    this.addMemberAndRebalance(g, req, newId, resolve);
  }

  private joinStaticMember(g: Group, req: JoinRequest, newId: string, resolve: (r: JoinResult) => void): void {
    const instanceId = req.groupInstanceId!;
    const oldId = g.staticMembers.get(instanceId);
    if (oldId === undefined || !g.members.has(oldId)) return this.addMemberAndRebalance(g, req, newId, resolve);

    // A known static member rejoins with an unknown member id: it replaces its old incarnation, which is fenced.
    const currentLeader = g.leader ?? '';
    const m = g.members.get(oldId)!;
    g.members.delete(oldId);
    invokeJoin(m, joinError(oldId, ErrorCode.FENCED_INSTANCE_ID));
    invokeSync(m, syncError(ErrorCode.FENCED_INSTANCE_ID));
    m.memberId = newId;
    g.members.set(newId, m);
    if (g.leader === oldId) g.leader = newId;
    g.staticMembers.set(instanceId, newId);
    if (g.pendingSync.delete(oldId)) g.pendingSync.add(newId);
    this.rb.scheduleSession(g, m, m.sessionTimeoutMs);
    const before = { protocols: m.protocols, rebalance: m.rebalanceTimeoutMs, session: m.sessionTimeoutMs };
    this.updateMember(m, req, resolve);

    switch (g.state) {
      case 'Stable': {
        if (g.protocolName === g.selectProtocol()) {
          // Nothing changes for the group: persist the new member id, then hand back the current generation.
          const gen = g.generation;
          this.reg.saveGroup(g, this.reg.snapshot(g)).then(
            () => {
              const isLeader = g.isLeader(newId);
              invokeJoin(m, {
                errorCode: ErrorCode.NONE, generationId: gen, protocolType: g.protocolType, protocolName: g.protocolName,
                leader: currentLeader, skipAssignment: isLeader && m.joinSupportsSkip, memberId: newId,
                members: isLeader ? g.currentMemberMetadata() : [],
              });
            },
            (e) => {
              // Revert to the old incarnation so the stored and in-memory groups agree.
              if (g.members.get(newId) === m) {
                g.members.delete(newId);
                m.memberId = oldId;
                g.members.set(oldId, m);
                if (g.leader === newId) g.leader = oldId;
                g.staticMembers.set(instanceId, oldId);
                m.protocols = before.protocols; m.rebalanceTimeoutMs = before.rebalance; m.sessionTimeoutMs = before.session;
              }
              invokeJoin(m, joinError(newId, storeErrorCode(e)));
            },
          );
        } else {
          this.rb.prepareRebalance(g, `static member ${instanceId} rejoined with a protocol change`);
        }
        break;
      }
      case 'CompletingRebalance':
        // The leader may already be assigning with the old member id: rebalance again.
        this.rb.prepareRebalance(g, `static member ${instanceId} rejoined during CompletingRebalance`);
        break;
      default:
        break; // PreparingRebalance: the member simply takes part in the running rebalance.
    }
  }

  private joinCurrentMember(g: Group, req: JoinRequest, resolve: (r: JoinResult) => void): void {
    const id = req.memberId;
    if (g.is('Dead')) return resolve(joinError(id, ErrorCode.COORDINATOR_NOT_AVAILABLE));
    if (!g.supportsProtocols(req.protocolType, req.protocols)) return resolve(joinError(id, ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    if (g.pendingMembers.has(id)) {
      if (req.groupInstanceId !== null) return resolve(joinError(id, ErrorCode.UNKNOWN_MEMBER_ID));
      return this.addMemberAndRebalance(g, req, id, resolve);
    }
    const err = g.validateMember(id, req.groupInstanceId);
    if (err !== null) return resolve(joinError(id, err));
    const m = g.members.get(id)!;
    switch (g.state) {
      case 'PreparingRebalance':
        this.updateMember(m, req, resolve);
        return;
      case 'CompletingRebalance':
        // Same metadata: the member probably missed the JoinGroup response; answer with the current generation.
        if (m.matches(req.protocols)) return resolve(this.currentGeneration(g, m));
        this.updateMember(m, req, resolve);
        this.rb.prepareRebalance(g, `member ${id} rejoined with new metadata`);
        return;
      case 'Stable':
        // The leader rejoining, or any member with new metadata, starts a rebalance.
        if (g.isLeader(id) || !m.matches(req.protocols)) {
          this.updateMember(m, req, resolve);
          this.rb.prepareRebalance(g, `member ${id} rejoined`);
          return;
        }
        return resolve(this.currentGeneration(g, m));
      default:
        return resolve(joinError(id, ErrorCode.UNKNOWN_MEMBER_ID));
    }
  }

  private currentGeneration(g: Group, m: Member): JoinResult {
    return {
      errorCode: ErrorCode.NONE, generationId: g.generation, protocolType: g.protocolType, protocolName: g.protocolName,
      leader: g.leader ?? '', skipAssignment: false, memberId: m.memberId,
      members: g.isLeader(m.memberId) ? g.currentMemberMetadata() : [],
    };
  }

  private updateMember(m: Member, req: JoinRequest, resolve: (r: JoinResult) => void): void {
    m.protocols = req.protocols;
    m.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
    m.sessionTimeoutMs = req.sessionTimeoutMs;
    // A JoinGroup still waiting from an earlier attempt must be answered, or its connection stalls.
    invokeJoin(m, joinError(m.memberId, ErrorCode.REBALANCE_IN_PROGRESS));
    m.joinWaiter = resolve;
    m.joinSupportsSkip = req.supportSkipAssignment;
  }

  private addMemberAndRebalance(g: Group, req: JoinRequest, memberId: string, resolve: (r: JoinResult) => void): void {
    const m = new Member(memberId, req.groupInstanceId, req.clientId, req.clientHost, req.sessionTimeoutMs, req.rebalanceTimeoutMs, req.protocolType, req.protocols);
    m.isNew = true;
    m.joinWaiter = resolve;
    m.joinSupportsSkip = req.supportSkipAssignment;
    if (g.is('PreparingRebalance') && g.generation === 0) g.newMemberAdded = true;
    g.pendingMembers.get(memberId)?.();
    g.pendingMembers.delete(memberId);
    g.add(m);
    // New members cannot heartbeat yet; a JoinGroup that waits too long is dropped (the client retries).
    this.rb.scheduleSession(g, m, NEW_MEMBER_JOIN_TIMEOUT_MS);
    this.rb.maybePrepareRebalance(g, `new member ${memberId} joined`);
  }
}
