// The share-group coordinator (KIP-932): ShareGroupHeartbeat and
// ShareGroupDescribe on the groups this broker coordinates. It keeps each
// group's membership (share-group.ts), stored after every change before the
// member is answered, fenced by the coordinator epoch like the other groups
// (ShareGroupStore), and each member's session timer
// (group.share.session.timeout.ms, or the group's override): a member that
// stops heartbeating is removed and the others get a new assignment. A group
// is loaded from the store on first use and again when the coordinator epoch
// of its slot changed (the slot moved away and back), so a restarted or new
// coordinator carries on with the same members and epochs.
import type { Cancel, Clock } from '../../../../common/clock.js';
import type { Logger } from '../../../../common/logger/logger.js';
import { ErrorCode, KafkaError } from '../../../../common/errors.js';
import type { TopicMeta } from '../consumer/assignors.js';
import { ShareGroup, type ShareHeartbeatInput, type ShareHeartbeatOutput } from './share-group.js';
import type { ShareGroupConfigs } from './share-configs.js';
import type { ShareGroupStore } from './share-store.js';

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

interface Loaded { group: ShareGroup; epoch: number }

export class ShareCoordinator {
  private readonly groups = new Map<string, Loaded>();
  private readonly loading = new Map<string, Promise<Loaded | null>>();
  private readonly timers = new Map<string, Cancel>();

  constructor(
    private readonly clock: Clock,
    private readonly configs: ShareGroupConfigs,
    private readonly maxSize: number,
    private readonly topics: () => Promise<TopicMeta[]>,
    private readonly store: ShareGroupStore,
    /** The coordinator epoch of the group's slot while this broker holds it, else null. */
    private readonly epochOf: (groupId: string) => number | null = () => 0,
    private readonly logger?: Logger,
  ) {}

  private async catalog(): Promise<Map<string, TopicMeta>> {
    return new Map((await this.topics()).map((t) => [t.name, t]));
  }

  /** The group as loaded here (no store access). */
  group(groupId: string): ShareGroup | undefined {
    return this.groups.get(groupId)?.group;
  }

  groupIds(): string[] {
    return [...this.groups.keys()];
  }

  /** The group under the current coordinator epoch: loaded from the store when new here or the epoch moved; null when none is stored. */
  private async load(groupId: string): Promise<Loaded | null> {
    const epoch = this.epochOf(groupId);
    if (epoch === null) throw new KafkaError(ErrorCode.NOT_COORDINATOR, `not the coordinator of share group ${groupId}`);
    const cur = this.groups.get(groupId);
    if (cur && cur.epoch === epoch) return cur;
    const pending = this.loading.get(groupId);
    if (pending) return pending;
    const p = (async (): Promise<Loaded | null> => {
      const stored = await this.store.loadGroup(groupId, epoch);
      this.cancelGroup(groupId);
      if (!stored) {
        this.groups.delete(groupId);
        return null;
      }
      const loaded = { group: ShareGroup.fromStored(groupId, stored), epoch };
      this.groups.set(groupId, loaded);
      // Every member must heartbeat within its session from now (Kafka schedules the timers on load too).
      for (const id of loaded.group.members.keys()) this.schedule(loaded, id);
      return loaded;
    })().finally(() => this.loading.delete(groupId));
    this.loading.set(groupId, p);
    return p;
  }

  private cancelGroup(groupId: string): void {
    for (const [k, c] of [...this.timers]) {
      if (k.startsWith(`${groupId}\u0000`)) {
        c();
        this.timers.delete(k);
      }
    }
  }

  private schedule(l: Loaded, memberId: string): void {
    const key = `${l.group.groupId}\u0000${memberId}`;
    this.timers.get(key)?.();
    this.timers.set(key, this.clock.schedule(this.configs.of(l.group.groupId).sessionTimeoutMs, () => {
      this.timers.delete(key);
      if (this.groups.get(l.group.groupId) !== l || !l.group.removeMember(memberId)) return;
      this.logger?.info('share group member removed', { group: l.group.groupId, member: memberId, reason: 'session timeout', groupEpoch: l.group.groupEpoch });
      this.store.saveGroup(l.group.groupId, l.epoch, l.group.toStored())
        .catch((e: unknown) => this.logger?.warn('share group write failed', { group: l.group.groupId, err: String(e) }));
    }));
  }

  async heartbeat(groupId: string, req: ShareHeartbeatInput): Promise<ShareHeartbeatResult> {
    let l = await this.load(groupId);
    if (!l) {
      if (req.memberEpoch !== 0) {
        return { errorCode: ErrorCode.UNKNOWN_MEMBER_ID, errorMessage: `Member ${req.memberId} is not a member of share group ${groupId}.`, memberId: req.memberId, memberEpoch: -1, assignment: null, heartbeatIntervalMs: 0 };
      }
      l = { group: new ShareGroup(groupId), epoch: this.epochOf(groupId) ?? 0 };
      this.groups.set(groupId, l);
    }
    const g = l.group;
    const topics = await this.catalog();
    const cfg = this.configs.of(groupId);
    const before = JSON.stringify(g.toStored());
    const out = g.heartbeat(req, topics, this.maxSize);
    const key = `${groupId}\u0000${req.memberId}`;
    if (out.errorCode === ErrorCode.NONE && out.memberEpoch >= 0) this.schedule(l, req.memberId);
    else if (out.errorCode === ErrorCode.NONE) {
      this.timers.get(key)?.();
      this.timers.delete(key);
    }
    // Stored before the member hears of its new epoch or assignment.
    if (JSON.stringify(g.toStored()) !== before) {
      try {
        await this.store.saveGroup(groupId, l.epoch, g.toStored());
      } catch (e) {
        // The store did not take the change: forget the copy, the next request reloads what the store holds.
        if (this.groups.get(groupId) === l) this.groups.delete(groupId);
        this.cancelGroup(groupId);
        throw e;
      }
    }
    return { ...out, heartbeatIntervalMs: out.errorCode === ErrorCode.NONE && out.memberEpoch >= 0 ? cfg.heartbeatIntervalMs : 0 };
  }

  async describe(groupId: string): Promise<DescribedShareGroup> {
    const l = await this.load(groupId);
    if (!l) return { groupId, errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${groupId} not found.`, state: 'Dead', groupEpoch: -1, assignmentEpoch: -1, assignorName: '', members: [] };
    const g = l.group;
    const names = new Map([...(await this.catalog()).values()].map((t) => [t.id, t.name]));
    return {
      groupId, errorCode: ErrorCode.NONE, errorMessage: null, state: g.state, groupEpoch: g.groupEpoch, assignmentEpoch: g.assignmentEpoch, assignorName: 'simple',
      members: [...g.members.values()].map((m) => ({
        memberId: m.memberId, rackId: m.rackId, memberEpoch: m.memberEpoch, clientId: m.clientId, clientHost: m.clientHost, subscribedTopicNames: m.subscribedTopicNames,
        assignment: [...m.assignment].map(([topicId, partitions]) => ({ topicId, topicName: names.get(topicId) ?? '', partitions })),
      })),
    };
  }

  /** Members of the group (loaded from the store when not here); 0 for none. */
  async memberCount(groupId: string): Promise<number> {
    return (await this.load(groupId))?.group.members.size ?? 0;
  }

  /** Removes an empty group (deleted) here and in the store. */
  async forget(groupId: string): Promise<void> {
    const l = await this.load(groupId);
    if (l && l.group.members.size > 0) return;
    await this.store.saveGroup(groupId, l?.epoch ?? this.epochOf(groupId) ?? 0, null);
    this.groups.delete(groupId);
    this.cancelGroup(groupId);
  }

  stop(): void {
    for (const c of this.timers.values()) c();
    this.timers.clear();
    this.groups.clear();
  }
}
