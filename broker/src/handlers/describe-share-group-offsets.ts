// DescribeShareGroupOffsets (key 90), v0-v1.
//   v0: each share-partition's start offset (SPSO; -1 without state), all of
//       the group's share-partitions when Topics is null (KIP-932).
//   v1: the lag too: records from the SPSO to the high watermark not yet
//       acknowledged or archived (-1 where this broker does not lead the partition).
// Needs DESCRIBE on the group and on each topic; a group this broker does not
// coordinate is NOT_COORDINATOR; an unknown one GROUP_ID_NOT_FOUND.
import { DescribeShareGroupOffsets } from '../protocol/messages/describe-share-group-offsets.js';
import { ErrorCode } from '../../../common/errors.js';
import { coordinatesGroup } from './support/group-common.js';
import type { BrokerServices, HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';
import { ZERO_UUID } from '../protocol/uuid.js';
import type { TopicRecord } from '../storage/log-store.js';

async function highWatermark(b: BrokerServices, t: TopicRecord, partition: number): Promise<number | null> {
  try {
    const p = await b.log.partition(t.name, partition);
    await p.ensureLoaded();
    return p.highWatermark;
  } catch {
    return null;
  }
}

export const describeShareGroupOffsetsHandler: HandlerOf<typeof DescribeShareGroupOffsets> = {
  api: DescribeShareGroupOffsets,
  minVersion: 0,
  maxVersion: 1,
  async handle(req, ctx, b) {
    const groups = await Promise.all(req.groups.map(async (g) => {
      const fail = (errorCode: number, errorMessage: string | null = null) => ({ groupId: g.groupId, topics: [], errorCode, errorMessage });
      if (!authorize(ctx, b, Op.DESCRIBE, Resource.GROUP, g.groupId)) return fail(ErrorCode.GROUP_AUTHORIZATION_FAILED);
      if (!b.shares) return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      if (!coordinatesGroup(b, g.groupId)) return fail(ErrorCode.NOT_COORDINATOR);
      const admin = b.shares.admin;
      if (!(await admin.exists(g.groupId))) return fail(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${g.groupId} not found.`);
      // The topics asked for, or every topic with state.
      let wanted: Array<{ topicName: string; partitions: number[] | null }>;
      if (g.topics !== null) wanted = g.topics.map((t) => ({ topicName: t.topicName, partitions: t.partitions }));
      else {
        const byTopic = new Map<string, number[]>();
        for (const p of await admin.partitions(g.groupId)) byTopic.set(p.topicId, [...(byTopic.get(p.topicId) ?? []), p.partition]);
        wanted = [];
        for (const [topicId, ps] of byTopic) {
          const t = await b.log.topicById(topicId);
          if (t) wanted.push({ topicName: t.name, partitions: ps.sort((x, y) => x - y) });
        }
      }
      const topics = await Promise.all(wanted.filter((w) => authorize(ctx, b, Op.DESCRIBE, Resource.TOPIC, w.topicName)).map(async (w) => {
        const t = await b.log.topic(w.topicName);
        const partitions = await Promise.all((w.partitions ?? []).map(async (partitionIndex) => {
          if (!t || partitionIndex < 0 || partitionIndex >= t.partitions) {
            return { partitionIndex, startOffset: -1, leaderEpoch: -1, lag: -1, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: null };
          }
          const d = await admin.describe(g.groupId, t.id, partitionIndex, await highWatermark(b, t, partitionIndex));
          return { partitionIndex, ...d, errorCode: ErrorCode.NONE, errorMessage: null };
        }));
        return { topicName: w.topicName, topicId: t?.id ?? ZERO_UUID, partitions };
      }));
      return { groupId: g.groupId, topics, errorCode: ErrorCode.NONE, errorMessage: null };
    }));
    return { throttleTimeMs: 0, groups };
  },
};
