// Mirrors committed offsets into the internal topic `__consumer_offsets`
// (partition = the group's coordinator slot), in Kafka's record format, for
// lag monitors that read the topic (Burrow and the like). The Redis hash
// `rn:g:{<group>}:offsets` stays the source of truth: the mirror is written
// after the authoritative write succeeded, and a failed mirror append is
// logged and never fails the commit (a monitor then misses one update, which
// the group's next commit of that partition repairs).
import { ErrorCode } from '../../../common/errors.js';
import type { Logger } from '../../../common/logger/logger.js';
import type { LogManager } from '../log/log-manager.js';
import { OFFSETS_TOPIC } from '../log/internal-topics.js';
import { parseOffsetKey, type CommittedOffset, type OffsetKey } from './group-store.js';
import { buildInternalBatch, encodeOffsetCommitKey, encodeOffsetCommitValue, type InternalRecord } from './offsets-records.js';

/** What the offset manager tells the mirror; both resolve once the append finished (or failed and was logged). */
export interface OffsetsMirror {
  committed(groupId: string, offsets: Map<OffsetKey, CommittedOffset>): Promise<void>;
  /** Offsets deleted (OffsetDelete, DeleteGroups) or expired: tombstones. */
  removed(groupId: string, keys: OffsetKey[]): Promise<void>;
}

export class OffsetsTopicMirror implements OffsetsMirror {
  /**
   * Appends per slot run one after another in the order they were queued,
   * which is the order their hash writes completed (queued synchronously on
   * completion): the topic never shows an older commit after a newer one.
   */
  private readonly chains = new Map<number, Promise<void>>();

  constructor(
    private readonly log: LogManager,
    private readonly slotOf: (groupId: string) => number,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  committed(groupId: string, offsets: Map<OffsetKey, CommittedOffset>): Promise<void> {
    const records: InternalRecord[] = [...offsets].map(([k, v]) => ({ key: keyOf(groupId, k), value: encodeOffsetCommitValue(v) }));
    return this.enqueue(groupId, records);
  }

  removed(groupId: string, keys: OffsetKey[]): Promise<void> {
    return this.enqueue(groupId, keys.map((k) => ({ key: keyOf(groupId, k), value: null })));
  }

  private enqueue(groupId: string, records: InternalRecord[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    const slot = this.slotOf(groupId);
    const next = (this.chains.get(slot) ?? Promise.resolve())
      .then(() => this.append(slot, records))
      .catch((e: unknown) => {
        // Mirror only: the commit stands (stored in the group's hash) whatever happens here.
        this.logger.warn('offset commit not mirrored to __consumer_offsets', { group: groupId, partition: slot, err: e instanceof Error ? e.message : String(e) });
      });
    this.chains.set(slot, next);
    void next.then(() => { if (this.chains.get(slot) === next) this.chains.delete(slot); });
    return next;
  }

  private async append(slot: number, records: InternalRecord[]): Promise<void> {
    const t = await this.log.topic(OFFSETS_TOPIC);
    if (!t) throw new Error(`${OFFSETS_TOPIC} does not exist`);
    if (slot >= t.partitions) throw new Error(`${OFFSETS_TOPIC} has ${t.partitions} partitions, none for coordinator slot ${slot}`);
    // Led by whoever holds coordinator slot `slot`, with the slot's coordinator epoch (log-manager.ts).
    const p = await this.log.ledPartition(t, slot);
    const out = await p.append(buildInternalBatch(records, this.now()), { logAppendTime: false });
    if (out.errorCode !== ErrorCode.NONE) throw new Error(`append failed with error ${out.errorCode}: ${out.errorMessage ?? ''}`);
  }
}

function keyOf(group: string, k: OffsetKey): Buffer {
  const { topic, partition } = parseOffsetKey(k);
  return encodeOffsetCommitKey({ group, topic, partition });
}
