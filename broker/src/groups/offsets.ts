// Committed offsets: OffsetCommit (inside and outside group management),
// OffsetFetch, OffsetDelete and offset expiry (KIP-211).
import { ErrorCode } from '../../../common/errors.js';
import type { CommitRequest, FetchedOffset } from './requests.js';
import type { Group } from './group.js';
import { offsetKey, parseOffsetKey, type CommittedOffset, type OffsetKey } from './group-store.js';
import type { GroupRegistry } from './group-registry.js';
import type { Rebalancer } from './rebalance.js';
import { isNotCoordinator, storeErrorCode } from './replies.js';
import { ConsumerGroupFlow } from './consumer-flow.js';

export class OffsetManager {
  constructor(private readonly reg: GroupRegistry, private readonly rb: Rebalancer) {}

  /** One error code per requested partition, in request order. */
  async commitOffsets(req: CommitRequest): Promise<number[]> {
    const all = (code: number): number[] => req.offsets.map(() => code);
    let g: Group | null;
    try {
      g = await this.reg.getGroup(req.groupId);
      if (!g) {
        // No group: only a commit outside group management (generation < 0) may create one.
        if (req.generationId >= 0) return all(ErrorCode.ILLEGAL_GENERATION);
        g = await this.reg.getOrCreate(req.groupId);
      }
    } catch (e) {
      return all(storeErrorCode(e));
    }
    const err = this.validateCommit(g, req);
    if (err !== null) return all(err);
    if (g.is('CompletingRebalance')) return all(ErrorCode.REBALANCE_IN_PROGRESS);
    const m = g.members.get(req.memberId);
    if (m) this.rb.scheduleSession(g, m, m.sessionTimeoutMs);

    const now = this.reg.clock.now();
    const codes = all(ErrorCode.NONE);
    const toStore = new Map<OffsetKey, CommittedOffset>();
    req.offsets.forEach((p, i) => {
      const metadata = p.metadata ?? '';
      if (metadata.length > this.reg.settings.offsetMetadataMaxBytes) {
        codes[i] = ErrorCode.OFFSET_METADATA_TOO_LARGE;
        return;
      }
      const ts = p.commitTimestamp !== undefined && p.commitTimestamp >= 0 ? p.commitTimestamp : now;
      toStore.set(offsetKey(p.topic, p.partition), { offset: p.offset, leaderEpoch: p.leaderEpoch, metadata, commitTimestamp: ts });
    });
    if (toStore.size === 0) return codes;
    try {
      await this.reg.write(g, (epoch) => this.reg.store.commitOffsets(req.groupId, toStore, epoch));
    } catch (e) {
      const code = storeErrorCode(e);
      this.reg.dropIfUnused(g);
      return codes.map((c) => (c === ErrorCode.NONE ? code : c));
    }
    if (this.reg.alive(g)) for (const [k, v] of toStore) g.offsets.set(k, v);
    // Kafka answers a commit once it is in __consumer_offsets; here the hash is
    // authoritative and the topic a copy, so the answer waits for the copy but
    // never fails because of it (the mirror logs its own failures).
    await this.reg.mirror?.committed(req.groupId, toStore);
    return codes;
  }

  private validateCommit(g: Group, req: CommitRequest): number | null {
    if (g.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (g.modern) return ConsumerGroupFlow.validate(g.modern, req.memberId, req.generationId, req.apiVersion ?? 9);
    if (req.generationId >= 0 || req.memberId !== '' || req.groupInstanceId !== null) {
      const err = g.validateMember(req.memberId, req.groupInstanceId);
      if (err !== null) return err;
      return req.generationId !== g.generation ? ErrorCode.ILLEGAL_GENERATION : null;
    }
    // Outside group management only while nobody is a member.
    return g.is('Empty') ? null : ErrorCode.UNKNOWN_MEMBER_ID;
  }

  /** Committed offsets of the requested partitions (all committed ones when null). */
  async fetchOffsets(groupId: string, partitions: Array<{ topic: string; partition: number }> | null): Promise<FetchedOffset[]> {
    const g = await this.reg.getGroup(groupId);
    const none = (p: { topic: string; partition: number }): FetchedOffset => ({ ...p, offset: -1, leaderEpoch: -1, metadata: '', errorCode: ErrorCode.NONE });
    if (!g || g.is('Dead')) return (partitions ?? []).map(none);
    const wanted = partitions ?? [...g.offsets.keys()].map(parseOffsetKey);
    return wanted.map((p) => {
      const o = g.offsets.get(offsetKey(p.topic, p.partition));
      return o ? { ...p, offset: o.offset, leaderEpoch: o.leaderEpoch, metadata: o.metadata, errorCode: ErrorCode.NONE } : none(p);
    });
  }

  /** OffsetDelete: a group error, or one error per requested partition. */
  async deleteOffsets(groupId: string, partitions: Array<{ topic: string; partition: number }>): Promise<{ errorCode: number; partitions: number[] }> {
    const g = await this.reg.getGroup(groupId);
    if (!g || g.is('Dead')) return { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, partitions: [] };
    let codes: number[];
    const cg = g.modern;
    if (cg && cg.members.size > 0) codes = partitions.map((p) => (cg.isSubscribedTo(p.topic) ? ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC : ErrorCode.NONE));
    else if (g.is('Empty')) codes = partitions.map(() => ErrorCode.NONE);
    else if (g.protocolType === 'consumer') codes = partitions.map((p) => (g.isSubscribedTo(p.topic) ? ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC : ErrorCode.NONE));
    else return { errorCode: ErrorCode.NON_EMPTY_GROUP, partitions: [] };
    const keys = partitions.filter((p, i) => codes[i] === ErrorCode.NONE && g.offsets.has(offsetKey(p.topic, p.partition))).map((p) => offsetKey(p.topic, p.partition));
    if (keys.length > 0) {
      try {
        await this.reg.write(g, (epoch) => this.reg.store.deleteOffsets(groupId, keys, epoch));
      } catch (e) {
        return { errorCode: storeErrorCode(e), partitions: [] };
      }
      for (const k of keys) g.offsets.delete(k);
      await this.reg.mirror?.removed(groupId, keys);
    }
    return { errorCode: ErrorCode.NONE, partitions: codes };
  }

  /**
   * Offset expiry (offsets.retention.minutes): offsets of an empty group
   * expire once it has been empty that long; offsets of simple (member-less)
   * groups and of topics a stable consumer group no longer subscribes to
   * expire that long after their commit. Empty groups without offsets are
   * deleted. Returns the number of expired offsets.
   */
  async expireOffsets(): Promise<number> {
    const ids = await this.reg.knownIds();
    let expiredTotal = 0;
    for (const id of ids) {
      if (!this.reg.isLocal(id)) continue;
      try {
        expiredTotal += await this.expireGroup(id);
      } catch (e) {
        // This broker stopped coordinating the group (fenced or moved): the new coordinator expires it.
        if (!isNotCoordinator(e)) throw e;
      }
    }
    return expiredTotal;
  }

  /** Expires the offsets of one group and deletes it when nothing is left; returns the number expired. */
  private async expireGroup(id: string): Promise<number> {
    const g = await this.reg.getGroup(id);
    if (!g || g.is('Dead')) return 0;
    // A consumer-protocol group with members keeps its offsets; an empty one expires them by commit time.
    if (g.modern && g.modern.members.size > 0) return 0;
    const now = this.reg.clock.now();
    const retention = this.reg.settings.offsetsRetentionMs;
    let base: ((k: OffsetKey, o: CommittedOffset) => number | null) | null = null;
    if (g.protocolType !== null && g.is('Empty')) base = () => g.stateTimestamp;
    else if (g.protocolType === null || g.modern) base = (_k, o) => o.commitTimestamp;
    else if (g.protocolType === 'consumer' && g.subscribed !== null && g.is('Stable')) {
      const subscribed = g.subscribed;
      base = (k, o) => (subscribed.has(parseOffsetKey(k).topic) ? null : o.commitTimestamp);
    }
    const expired: OffsetKey[] = [];
    if (base) {
      for (const [k, o] of g.offsets) {
        const b = base(k, o);
        if (b !== null && now - b >= retention) expired.push(k);
      }
    }
    if (expired.length > 0) {
      await this.reg.write(g, (epoch) => this.reg.store.deleteOffsets(id, expired, epoch));
      for (const k of expired) g.offsets.delete(k);
      await this.reg.mirror?.removed(id, expired);
      this.reg.logger?.info('expired offsets', { group: id, count: expired.length });
    }
    if (g.is('Empty') && g.offsets.size === 0 && g.size === 0 && g.pendingMembers.size === 0) {
      g.transition('Dead', now);
      await this.reg.write(g, (epoch) => this.reg.store.deleteGroup(id, epoch));
      this.reg.forget(g);
      this.reg.cancelTimers(g);
    }
    return expired.length;
  }
}
