// OffsetFetch (key 9), v0-v9.
//   v0-v1: the committed offsets of the named partitions, errors per partition (in
//       Kafka v0 read ZooKeeper, v1 the offsets topic; both read the same here).
//   v2-v4: null topics asks for all; a top-level error; v3 adds the throttle time, v4
//       is answered before throttling.
//   v5: the leader epoch of each offset.
//   v6: flexible encoding.
//   v7: require_stable: a pending transactional commit answers UNSTABLE_OFFSET_COMMIT (KIP-447).
//   v8: many groups in one request.
//   v9: the member id and member epoch of a consumer-protocol group member (KIP-848):
//       an unknown member is UNKNOWN_MEMBER_ID, another epoch STALE_MEMBER_EPOCH.
// Needs DESCRIBE on the group; a topic without DESCRIBE answers
// TOPIC_AUTHORIZATION_FAILED, or is left out when all topics are asked for.
import { OffsetFetch } from '../protocol/messages/offset-fetch.js';
import { ErrorCode } from '../../../common/errors.js';
import type { FetchedOffset } from '../groups/coordinator.js';
import { coordinatesGroup, groupErrorCode } from './support/group-common.js';
import type { BrokerServices, HandlerOf, RequestContext } from './support/types.js';
import { Op, Resource, authorize, authorizedNames } from './support/authorize.js';
import type { Element, RequestOf, ResponseOf } from '../protocol/typed.js';

/** The topics asked for (v0-7 at the top, v8+ per group; null: all of them). */
type ReqTopics = RequestOf<typeof OffsetFetch>['topics'] | Element<RequestOf<typeof OffsetFetch>['groups']>['topics'];
type TopicAnswer = Element<ResponseOf<typeof OffsetFetch>['topics']>;
type PartitionAnswer = Element<TopicAnswer['partitions']>;

interface GroupResult { errorCode: number; topics: TopicAnswer[] }

function byTopic(rows: FetchedOffset[]): GroupResult['topics'] {
  const out = new Map<string, PartitionAnswer[]>();
  for (const r of rows) {
    let list = out.get(r.topic);
    if (!list) out.set(r.topic, (list = []));
    list.push({ partitionIndex: r.partition, committedOffset: r.offset, committedLeaderEpoch: r.leaderEpoch, metadata: r.metadata, errorCode: r.errorCode });
  }
  return [...out].map(([name, partitions]) => ({ name, partitions }));
}

async function fetchGroup(ctx: RequestContext, b: BrokerServices, groupId: string, topics: ReqTopics, requireStable = false, member: { id: string | null; epoch: number } | null = null): Promise<GroupResult> {
  const wanted = topics === null ? null : topics.flatMap((t) => t.partitionIndexes.map((partition) => ({ topic: t.name, partition })));
  const failAll = (code: number): GroupResult => ({
    errorCode: code,
    topics: byTopic((wanted ?? []).map((p) => ({ ...p, offset: -1, leaderEpoch: -1, metadata: '', errorCode: code }))),
  });
  // Kafka: DESCRIBE on the group; partitions of topics without DESCRIBE answer TOPIC_AUTHORIZATION_FAILED (left out of an all-topics fetch).
  if (!authorize(ctx, b, Op.DESCRIBE, Resource.GROUP, groupId)) return failAll(ErrorCode.GROUP_AUTHORIZATION_FAILED);
  if (!coordinatesGroup(b, groupId)) return failAll(ErrorCode.NOT_COORDINATOR);
  try {
    const memberErr = member ? await b.groups.validateOffsetFetch(groupId, member.id, member.epoch) : null;
    if (memberErr !== null) return failAll(memberErr);
    let rows = await b.groups.fetchOffsets(groupId, wanted);
    const visible = authorizedNames(ctx, b, Op.DESCRIBE, Resource.TOPIC, new Set(rows.map((r) => r.topic)));
    if (wanted === null) rows = rows.filter((r) => visible.has(r.topic));
    else for (const r of rows) if (!visible.has(r.topic)) Object.assign(r, { offset: -1, leaderEpoch: -1, metadata: '', errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED });
    if (requireStable) {
      // KIP-447: partitions with a transactional commit still pending answer UNSTABLE_OFFSET_COMMIT (the client retries).
      const pending = await b.groups.pendingTxnOffsets(groupId);
      for (const r of rows) if (pending.has(`${r.topic}/${r.partition}`)) Object.assign(r, { offset: -1, leaderEpoch: -1, metadata: '', errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT });
    }
    return { errorCode: ErrorCode.NONE, topics: byTopic(rows) };
  } catch (e) {
    return failAll(groupErrorCode(e));
  }
}

export const offsetFetchHandler: HandlerOf<typeof OffsetFetch> = {
  api: OffsetFetch,
  minVersion: 0,
  maxVersion: 9,
  async handle(req, ctx, b) {
    const v = ctx.apiVersion;
    if (v >= 8) {
      const groups = req.groups;
      const results = await Promise.all(groups.map((g) => fetchGroup(ctx, b, g.groupId, g.topics, req.requireStable === true, v >= 9 ? { id: g.memberId, epoch: g.memberEpoch } : null)));
      return { throttleTimeMs: 0, groups: results.map((r, i) => ({ groupId: groups[i]!.groupId, topics: r.errorCode === ErrorCode.NONE ? r.topics : [], errorCode: r.errorCode })) };
    }
    const r = await fetchGroup(ctx, b, req.groupId, req.topics, v >= 7 && req.requireStable === true);
    // v2+ carry a group-level error; v0-1 only per-partition errors.
    if (v >= 2 && r.errorCode !== ErrorCode.NONE) return { throttleTimeMs: 0, topics: [], errorCode: r.errorCode };
    return { throttleTimeMs: 0, topics: r.topics, errorCode: r.errorCode };
  },
};
