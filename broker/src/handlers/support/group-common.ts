// Shared by the consumer-group handlers.
import { ErrorCode, kafkaCodeOf } from '../../../../common/errors.js';
import { isLocalCoordinator } from './cluster-view.js';
import type { BrokerServices, RequestContext } from './types.js';
import type { CommitPartition } from '../../groups/coordinator.js';
import { Op, Resource, authorize } from './authorize.js';

/**
 * Whether this broker coordinates the group. When it does not, any copy of
 * the group in memory is dropped, so that a later takeover reloads it from
 * Redis instead of serving stale state.
 */
export function coordinatesGroup(b: BrokerServices, groupId: string): boolean {
  if (isLocalCoordinator(b, groupId)) return true;
  b.groups.unload(groupId);
  return false;
}

/**
 * Whether a share group has the id. Kafka keeps one group per id whatever its
 * type: a consumer member joining a share group's id is GROUP_ID_NOT_FOUND
 * ("Group X is not a consumer group."), a classic one INCONSISTENT_GROUP_PROTOCOL
 * (test/integration/groups/group-type-clash.test.ts, also against Kafka 4.4).
 * Asked only when a member first joins, so rejoins and heartbeats cost nothing.
 */
export async function isShareGroup(b: BrokerServices, groupId: string): Promise<boolean> {
  return b.shares ? b.shares.admin.known(groupId) : false;
}

/** Storage trouble becomes COORDINATOR_NOT_AVAILABLE (retriable: clients look the coordinator up again). */
export function groupErrorCode(e: unknown): number {
  const code = kafkaCodeOf(e, 'coordinator');
  if (code === null) throw e;
  return code;
}

/** A partition of an OffsetCommit or TxnOffsetCommit request, as both spell it. */
interface CommitRequestPartition {
  partitionIndex: number;
}

/**
 * The shared steps of OffsetCommit and TxnOffsetCommit: one error code per
 * requested partition, in request order. `refused` (a failed group or
 * transactional-id authorization) fails every partition; then, as in Kafka,
 * NOT_COORDINATOR for all, and per topic TOPIC_AUTHORIZATION_FAILED (READ) or
 * UNKNOWN_TOPIC_OR_PARTITION. The rest go to `commit` in one call.
 */
export async function commitPartitions<P extends CommitRequestPartition>(
  ctx: RequestContext,
  b: BrokerServices,
  req: { groupId: string; topics: { name: string; partitions: P[] }[] },
  refused: number | null,
  toOffset: (topic: string, p: P) => CommitPartition,
  commit: (offsets: CommitPartition[]) => Promise<number[]>,
): Promise<{ throttleTimeMs: number; topics: { name: string; partitions: { partitionIndex: number; errorCode: number }[] }[] }> {
  const topics = req.topics;
  const codes: number[][] = topics.map((t) => t.partitions.map(() => ErrorCode.NONE));
  const respond = () => ({
    throttleTimeMs: 0,
    topics: topics.map((t, i) => ({ name: t.name, partitions: t.partitions.map((p, j) => ({ partitionIndex: p.partitionIndex, errorCode: codes[i]![j]! })) })),
  });
  const fillAll = (code: number): void => { for (const c of codes) c.fill(code); };
  if (refused !== null) {
    fillAll(refused);
    return respond();
  }
  if (!coordinatesGroup(b, req.groupId)) {
    fillAll(ErrorCode.NOT_COORDINATOR);
    return respond();
  }
  const offsets: CommitPartition[] = [];
  const slots: Array<[number, number]> = [];
  for (let i = 0; i < topics.length; i++) {
    const t = topics[i]!;
    const topic = b.log.cachedTopic(t.name) ?? (await b.log.topic(t.name));
    const topicDenied = !authorize(ctx, b, Op.READ, Resource.TOPIC, t.name);
    t.partitions.forEach((p, j) => {
      if (topicDenied) {
        codes[i]![j] = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
        return;
      }
      if (!topic || p.partitionIndex < 0 || p.partitionIndex >= topic.partitions) {
        codes[i]![j] = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        return;
      }
      offsets.push(toOffset(t.name, p));
      slots.push([i, j]);
    });
  }
  if (offsets.length === 0) return respond();
  try {
    const results = await commit(offsets);
    results.forEach((code, k) => { const [i, j] = slots[k]!; codes[i]![j] = code; });
  } catch (e) {
    const code = groupErrorCode(e);
    for (const [i, j] of slots) codes[i]![j] = code;
  }
  return respond();
}
