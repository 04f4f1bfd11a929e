// Transactional offset commits (TxnOffsetCommit, KIP-98/KIP-447) on the group
// coordinator side: offsets are kept pending per (group, producer) until the
// transaction's marker reaches the group's `__consumer_offsets` partition,
// then committed (COMMIT) or dropped (ABORT). While pending, OffsetFetch with
// require_stable answers UNSTABLE_OFFSET_COMMIT for those partitions.
import { ErrorCode } from '../../../common/errors.js';
import { ConsumerGroupFlow } from './consumer-flow.js';
import type { TxnCommitRequest } from './requests.js';
import { offsetKey, type CommittedOffset, type OffsetKey } from './group-store.js';
import type { GroupRegistry } from './group-registry.js';
import { storeErrorCode } from './replies.js';
import type { TxnOffsetStore } from './txn-offset-store.js';

export class TxnOffsetManager {
  constructor(private readonly reg: GroupRegistry, private readonly store: TxnOffsetStore, private readonly slotOf: (groupId: string) => number) {}

  /** One error code per requested partition, in request order. */
  async commit(req: TxnCommitRequest): Promise<number[]> {
    const all = (code: number): number[] => req.offsets.map(() => code);
    let g;
    try {
      g = await this.reg.getOrCreate(req.groupId);
    } catch (e) {
      return all(storeErrorCode(e));
    }
    if (g.is('Dead')) return all(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    // A consumer-protocol group checks the member and its epoch (KIP-848).
    const modernErr = g.modern ? ConsumerGroupFlow.validate(g.modern, req.memberId, req.generationId, null) : null;
    if (modernErr !== null) return all(modernErr);
    // Kafka (KIP-447): a member id or generation, when given, must match the group's.
    if (g.modern) { /* checked above */ } else if (req.groupInstanceId !== null || req.memberId !== '') {
      const err = g.validateMember(req.memberId, req.groupInstanceId);
      if (err !== null) return all(err);
    }
    if (!g.modern && req.generationId >= 0 && req.generationId !== g.generation) return all(ErrorCode.ILLEGAL_GENERATION);
    const now = this.reg.clock.now();
    const codes = all(ErrorCode.NONE);
    const pending = new Map<OffsetKey, CommittedOffset>();
    req.offsets.forEach((p, i) => {
      const metadata = p.metadata ?? '';
      if (metadata.length > this.reg.settings.offsetMetadataMaxBytes) codes[i] = ErrorCode.OFFSET_METADATA_TOO_LARGE;
      else pending.set(offsetKey(p.topic, p.partition), { offset: p.offset, leaderEpoch: p.leaderEpoch, metadata, commitTimestamp: now });
    });
    if (pending.size === 0) return codes;
    try {
      await this.reg.write(g, (epoch) => this.store.storePending(req.groupId, this.slotOf(req.groupId), req.producerId, pending, epoch));
    } catch (e) {
      const code = storeErrorCode(e);
      this.reg.dropIfUnused(g);
      return codes.map((c) => (c === ErrorCode.NONE ? code : c));
    }
    return codes;
  }

  /** A marker of `producerId` reached `__consumer_offsets` partition `slot`: apply or drop its pending offsets. */
  async complete(slot: number, producerId: number, commit: boolean): Promise<void> {
    for (const groupId of await this.store.pendingGroups(slot, producerId)) {
      const g = await this.reg.getOrCreate(groupId);
      let applied = new Map<OffsetKey, CommittedOffset>();
      await this.reg.write(g, async (epoch) => { applied = await this.store.complete(groupId, slot, producerId, commit, epoch); });
      if (this.reg.alive(g)) for (const [k, v] of applied) g.offsets.set(k, v);
      if (applied.size) await this.reg.mirror?.committed(groupId, applied);
    }
  }

  pendingPartitions(groupId: string): Promise<Set<OffsetKey>> {
    return this.store.pendingPartitions(groupId);
  }
}
