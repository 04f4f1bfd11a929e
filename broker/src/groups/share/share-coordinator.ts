// The share-group coordinator (KIP-932): ShareGroupHeartbeat and
// ShareGroupDescribe on the groups this broker coordinates. It keeps each
// group's membership (share-group.ts) and each member's session timer
// (group.share.session.timeout.ms, or the group's override): a member that
// stops heartbeating is removed and the others get a new assignment. The
// membership is held in memory: after a coordinator restart or move the
// members' heartbeats are answered UNKNOWN_MEMBER_ID and they join again with
// epoch 0 (the records they had acquired stay theirs until their locks run
// out, which the share-partition state keeps durably).
import type { Cancel, Clock } from '../../../../common/clock.js';
import type { Logger } from '../../../../common/logger/logger.js';
import { ErrorCode } from '../../../../common/errors.js';
import type { TopicMeta } from '../consumer/assignors.js';
import { ShareGroup, type ShareHeartbeatInput, type ShareHeartbeatOutput } from './share-group.js';
import type { ShareGroupConfigs } from './share-configs.js';

export interface ShareHeartbeatResult extends ShareHeartbeatOutput { heartbeatIntervalMs: number }

export interface DescribedShareGroup {
  groupId: string;
  errorCode: number;
  errorMessage: string | null;
  state: string;
  groupEpoch: number;
  assignmentEpoch: number;
  assignorName: string;
  members: Array<{
    memberId: string; rackId: string | null; memberEpoch: number; clientId: string; clientHost: string; subscribedTopicNames: string[];
    assignment: Array<{ topicId: string; topicName: string; partitions: number[] }>;
  }>;
}

export class ShareCoordinator {
  private readonly groups = new Map<string, ShareGroup>();
  private readonly timers = new Map<string, Cancel>();

  constructor(
    private readonly clock: Clock,
    private readonly configs: ShareGroupConfigs,
    private readonly maxSize: number,
    private readonly topics: () => Promise<TopicMeta[]>,
    private readonly logger?: Logger,
  ) {}

  private async catalog(): Promise<Map<string, TopicMeta>> {
    return new Map((await this.topics()).map((t) => [t.name, t]));
  }

  group(groupId: string): ShareGroup | undefined {
    return this.groups.get(groupId);
  }

  groupIds(): string[] {
    return [...this.groups.keys()];
  }

  async heartbeat(groupId: string, req: ShareHeartbeatInput): Promise<ShareHeartbeatResult> {
    let g = this.groups.get(groupId);
    if (!g) {
      if (req.memberEpoch !== 0) {
        return { errorCode: ErrorCode.UNKNOWN_MEMBER_ID, errorMessage: `Member ${req.memberId} is not a member of share group ${groupId}.`, memberId: req.memberId, memberEpoch: -1, assignment: null, heartbeatIntervalMs: 0 };
      }
      g = new ShareGroup(groupId);
      this.groups.set(groupId, g);
    }
    const topics = await this.catalog();
    const cfg = this.configs.of(groupId);
    const out = g.heartbeat(req, topics, this.maxSize);
    const key = `${groupId}\u0000${req.memberId}`;
    if (out.errorCode === ErrorCode.NONE && out.memberEpoch >= 0) {
      this.timers.get(key)?.();
      this.timers.set(key, this.clock.schedule(cfg.sessionTimeoutMs, () => {
        this.timers.delete(key);
        if (g.removeMember(req.memberId, undefined)) this.logger?.info('share group member removed', { group: groupId, member: req.memberId, reason: 'session timeout', groupEpoch: g.groupEpoch });
      }));
    } else if (out.errorCode === ErrorCode.NONE) {
      this.timers.get(key)?.();
      this.timers.delete(key);
    }
    return { ...out, heartbeatIntervalMs: out.errorCode === ErrorCode.NONE && out.memberEpoch >= 0 ? cfg.heartbeatIntervalMs : 0 };
  }

  async describe(groupId: string): Promise<DescribedShareGroup> {
    const g = this.groups.get(groupId);
    if (!g) return { groupId, errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${groupId} not found.`, state: 'Dead', groupEpoch: -1, assignmentEpoch: -1, assignorName: '', members: [] };
    const names = new Map([...(await this.catalog()).values()].map((t) => [t.id, t.name]));
    return {
      groupId, errorCode: ErrorCode.NONE, errorMessage: null, state: g.state, groupEpoch: g.groupEpoch, assignmentEpoch: g.assignmentEpoch, assignorName: 'simple',
      members: [...g.members.values()].map((m) => ({
        memberId: m.memberId, rackId: m.rackId, memberEpoch: m.memberEpoch, clientId: m.clientId, clientHost: m.clientHost, subscribedTopicNames: m.subscribedTopicNames,
        assignment: [...m.assignment].map(([topicId, partitions]) => ({ topicId, topicName: names.get(topicId) ?? '', partitions })),
      })),
    };
  }

  /** Drops an empty group (deleted). */
  forget(groupId: string): void {
    if ((this.groups.get(groupId)?.members.size ?? 0) === 0) this.groups.delete(groupId);
  }

  stop(): void {
    for (const c of this.timers.values()) c();
    this.timers.clear();
    this.groups.clear();
  }
}
