// ListOffsets (key 2), v1-v8.
//   v1: the oldest served: one offset per partition, with its timestamp.
//   v2-v3: isolation level; the throttle time; v3 is answered before throttling.
//   v4-v5: the current leader epoch, for fencing, and the leader epoch in the answer;
//       v5 may answer OFFSET_NOT_AVAILABLE.
//   v6: flexible encoding.
//   v7: MAX_TIMESTAMP (-3): the offset of the largest timestamp (KIP-734).
//   v8: EARLIEST_LOCAL (-4): the local log start offset (KIP-405).
// Needs DESCRIBE on the topic. LATEST is the last stable offset for read_committed;
// with no tiered storage EARLIEST_LOCAL is the log start offset.
import { ListOffsets } from '../protocol/messages/list-offsets.js';
import { ErrorCode, KafkaError } from '../../../common/errors.js';
import type { Partition } from '../log/partition.js';
import type { BrokerServices, HandlerOf } from './support/types.js';
import type { Element, RequestOf, ResponseOf } from '../protocol/typed.js';
import { READ_COMMITTED } from './fetch.js';
import { Op, Resource, authorize } from './support/authorize.js';


const LATEST = -1;
const EARLIEST = -2;
type PartitionRequest = Element<Element<RequestOf<typeof ListOffsets>['topics']>['partitions']>;
type PartitionAnswer = Element<Element<ResponseOf<typeof ListOffsets>['topics']>['partitions']>;
const MAX_TIMESTAMP = -3;
const EARLIEST_LOCAL = -4;
const LATEST_TIERED = -5;

export const listOffsetsHandler: HandlerOf<typeof ListOffsets> = {
  api: ListOffsets,
  minVersion: 1,
  maxVersion: 8,
  async handle(req, ctx, b) {
    const topics = [];
    const committed = req.isolationLevel === READ_COMMITTED;
    for (const rt of req.topics) {
      // Kafka: DESCRIBE on the topic.
      const denied = !authorize(ctx, b, Op.DESCRIBE, Resource.TOPIC, rt.name);
      const partitions = await Promise.all(rt.partitions.map((rp) => (denied
        ? { partitionIndex: rp.partitionIndex, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, timestamp: -1, offset: -1, leaderEpoch: -1 }
        : lookup(b, rt.name, rp, committed))));
      topics.push({ name: rt.name, partitions });
    }
    return { throttleTimeMs: 0, topics };
  },
};

async function lookup(b: BrokerServices, topic: string, rp: PartitionRequest, committed: boolean): Promise<PartitionAnswer> {
  const base = { partitionIndex: rp.partitionIndex, errorCode: ErrorCode.NONE, timestamp: -1, offset: -1, leaderEpoch: -1 };
  let p: Partition;
  try {
    p = await b.log.partition(topic, rp.partitionIndex);
    await p.ensureLoaded();
  } catch (e) {
    if (e instanceof KafkaError) return { ...base, errorCode: e.code };
    throw e;
  }
  if (rp.currentLeaderEpoch >= 0 && rp.currentLeaderEpoch !== p.leaderEpoch) {
    return { ...base, errorCode: rp.currentLeaderEpoch > p.leaderEpoch ? ErrorCode.UNKNOWN_LEADER_EPOCH : ErrorCode.FENCED_LEADER_EPOCH };
  }
  const epoch = p.leaderEpoch;
  switch (rp.timestamp) {
    case LATEST:
    case LATEST_TIERED:
      // Kafka: LATEST is the last stable offset for read_committed, the high watermark otherwise.
      return { ...base, offset: committed ? p.lastStableOffset : p.highWatermark, leaderEpoch: epoch };
    case EARLIEST:
    case EARLIEST_LOCAL:
      return { ...base, offset: p.logStartOffset, leaderEpoch: epoch };
    case MAX_TIMESTAMP: {
      const found = await b.log.locateMaxTimestamp(p);
      return found ? { ...base, ...found, leaderEpoch: epoch } : base;
    }
    default: {
      if (rp.timestamp < 0) return { ...base, errorCode: ErrorCode.INVALID_REQUEST };
      const found = await b.log.locateTimestamp(p, rp.timestamp);
      return found ? { ...base, ...found, leaderEpoch: epoch } : base;
    }
  }
}
