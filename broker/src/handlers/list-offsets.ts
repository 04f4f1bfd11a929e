// ListOffsets (key 2), v1-v10.
//   v1: the oldest served: one offset per partition, with its timestamp.
//   v2-v3: isolation level; the throttle time; v3 is answered before throttling.
//   v4-v5: the current leader epoch, for fencing, and the leader epoch in the answer;
//       v5 may answer OFFSET_NOT_AVAILABLE.
//   v6: flexible encoding.
//   v7: MAX_TIMESTAMP (-3): the offset of the largest timestamp (KIP-734).
//   v8: EARLIEST_LOCAL (-4): the local log start offset (KIP-405).
//   v9: LATEST_TIERED (-5): the highest offset in remote storage (KIP-1005).
//   v10: a timeout for remote lookups (KIP-1075).
// Needs DESCRIBE on the topic. LATEST is the last stable offset for read_committed.
// On a tiered topic EARLIEST is the start of the lake's part (the Kafka-visible log
// start), EARLIEST_LOCAL the Redis log start, and a lookup by time looks in the lake
// first; MAX_TIMESTAMP looks in Redis only. Without a remote tier EARLIEST_LOCAL is
// the log start and LATEST_TIERED -1, as in Kafka.
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
  maxVersion: 10,
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
      // Kafka: LATEST is the last stable offset for read_committed, the high watermark otherwise.
      return { ...base, offset: committed ? p.lastStableOffset : p.highWatermark, leaderEpoch: epoch };
    case LATEST_TIERED: {
      // The highest offset the lake holds and consumers may read (Kafka: highestOffsetInRemoteStorage, -1 when none).
      const t = await b.log.topic(topic);
      if (!t || !b.log.isTiered(t)) return base;
      const tiered = Math.min(p.archivedOffset, p.highWatermark - 1);
      return tiered >= p.earliestOffset ? { ...base, offset: tiered, leaderEpoch: epoch } : base;
    }
    case EARLIEST:
      return { ...base, offset: p.earliestOffset, leaderEpoch: epoch };
    case EARLIEST_LOCAL:
      return { ...base, offset: p.logStartOffset, leaderEpoch: epoch };
    case MAX_TIMESTAMP: {
      const found = await b.log.locateMaxTimestamp(p);
      return found ? { ...base, ...found, leaderEpoch: epoch } : base;
    }
    default: {
      if (rp.timestamp < 0) return { ...base, errorCode: ErrorCode.INVALID_REQUEST };
      let inLake: { offset: number; timestamp: number } | null;
      try {
        inLake = await lakeLookup(b, topic, p, rp.timestamp);
      } catch (e) {
        if (e instanceof KafkaError) return { ...base, errorCode: e.code }; // the lake failed: KAFKA_STORAGE_ERROR
        throw e;
      }
      if (inLake) return { ...base, ...inLake, leaderEpoch: epoch };
      const found = await b.log.locateTimestamp(p, rp.timestamp);
      return found ? { ...base, ...found, leaderEpoch: epoch } : base;
    }
  }
}

/** A lookup by time below the Redis log start of a tiered partition: the first record at or after `ts` that the lake holds and consumers may read. */
async function lakeLookup(b: BrokerServices, topic: string, p: Partition, ts: number): Promise<{ offset: number; timestamp: number } | null> {
  if (!b.remoteLog || p.remoteLogStartOffset === null) return null;
  const t = await b.log.topic(topic);
  if (!t) return null;
  const found = await b.remoteLog.offsetForTimestamp(p.tp, t.id, ts, p.logStartOffset);
  return found && found.offset >= p.earliestOffset ? found : null;
}
