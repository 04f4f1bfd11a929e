// Metadata (key 3), v0-v12.
//   v0: brokers and topics; an empty topic list asks for every topic.
//   v1: null asks for every topic, empty for none; broker racks, the controller,
//       whether a topic is internal.
//   v2-v3: the cluster id; v3 the throttle time.
//   v4: allow_auto_topic_creation.
//   v5-v6: offline replicas per partition; v6 is answered before throttling.
//   v7: each partition's leader epoch.
//   v8: the principal's operations on topics and cluster, when asked.
//   v9: flexible encoding.
//   v10-v11: topic ids in the answer; v11 drops the cluster's operations (KIP-700).
//   v12: topics may be asked for by id.
// Only topics the principal may DESCRIBE are listed. A topic being auto-created is
// answered LEADER_NOT_AVAILABLE (retriable), as in Kafka.
import { Metadata } from '../protocol/messages/metadata.js';
import { isInternalTopic, leaseUnitOf } from '../log/internal-topics.js';
import { ErrorCode } from '../../../common/errors.js';
import { validateTopicName } from '../log/log-manager.js';
import type { TopicRecord } from '../storage/log-store.js';
import { ZERO_UUID } from '../protocol/uuid.js';
import type { BrokerServices, HandlerOf, RequestContext } from './support/types.js';
import type { Element, RequestOf, ResponseOf } from '../protocol/typed.js';
import { Op, Resource, authorize, authorizeCluster, authorizedOperations } from './support/authorize.js';
import { quarantinedCount, usablePartitionCount } from '../topics/partition-limits.js';
import { brokerList, controllerId, partitionMetadata, type ListenerOf } from './support/cluster-view.js';
import { autoTopicCreator, type AutoCreateAnswer } from './support/auto-create.js';

/** The client's listener and the request version (LISTENER_NOT_FOUND exists from v6). */
type Listener = ListenerOf & { apiVersion: number };
type TopicRequest = Element<RequestOf<typeof Metadata>['topics']>;
type TopicAnswer = Element<ResponseOf<typeof Metadata>['topics']>;

/** What a topic supports (Kafka's AclOperation codes). */
const TOPIC_OPERATIONS = [Op.READ, Op.WRITE, Op.CREATE, Op.DELETE, Op.ALTER, Op.DESCRIBE, Op.DESCRIBE_CONFIGS, Op.ALTER_CONFIGS];

export const metadataHandler: HandlerOf<typeof Metadata> = {
  api: Metadata,
  minVersion: 0,
  maxVersion: 12,
  async handle(req, ctx, b) {
    const on = { ...ctx.session, apiVersion: ctx.apiVersion };
    const all = req.topics === null || (ctx.apiVersion === 0 && req.topics.length === 0);
    const topics: TopicAnswer[] = [];
    if (all) {
      // Kafka: an all-topics request lists only the topics the principal may DESCRIBE.
      for (const t of await b.log.allTopics()) if (authorize(ctx, b, Op.DESCRIBE, Resource.TOPIC, t.name)) topics.push(await describeTopic(t, b, on));
    } else {
      // Looked up together (the store's reads are pipelined); unknown topics to auto-create are answered below.
      const resolved = await Promise.all((req.topics ?? []).map((rt) => resolve(ctx, rt, req.allowAutoTopicCreation, b, on)));
      const toCreate = resolved.filter((r): r is AutoCreate => 'autoCreate' in r).map((r) => r.autoCreate);
      const started = toCreate.length > 0 ? await autoTopicCreator(b.log).request(toCreate) : null;
      for (const r of resolved) topics.push('autoCreate' in r ? autoCreateAnswer(r.autoCreate, started!.get(r.autoCreate)!) : r);
    }
    // v8+: the operations the principal may perform on each topic, when asked (Kafka's bit field).
    if (ctx.apiVersion >= 8 && req.includeTopicAuthorizedOperations) {
      for (const t of topics) if (t.errorCode === ErrorCode.NONE) t.topicAuthorizedOperations = authorizedOperations(ctx, b, Resource.TOPIC, t.name ?? '', TOPIC_OPERATIONS);
    }
    return {
      throttleTimeMs: 0,
      brokers: brokerList(b, ctx.session),
      clusterId: b.clusterId,
      controllerId: controllerId(b),
      topics,
    };
  },
};

/** A topic that does not exist and may be auto-created: answered once the creator has queued it. */
interface AutoCreate { autoCreate: string }

/**
 * Kafka (AutoTopicCreationManager) answers a topic whose creation it starts
 * with LEADER_NOT_AVAILABLE, retriable: the client asks again and finds it.
 * One that may not be created (num.partitions past a partition limit) is
 * UNKNOWN_TOPIC_OR_PARTITION, as before auto-creation was asynchronous.
 */
function autoCreateAnswer(name: string, answer: AutoCreateAnswer): TopicAnswer {
  if (answer === 'creating') return { errorCode: ErrorCode.LEADER_NOT_AVAILABLE, name, isInternal: false, partitions: [] };
  return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name, partitions: [] };
}

async function resolve(ctx: RequestContext, rt: TopicRequest, autoCreate: boolean, b: BrokerServices, on: Listener): Promise<TopicAnswer | AutoCreate> {
  const denied = { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, name: rt.name, topicId: rt.topicId, partitions: [] };
  // Kafka: a topic id, when given, names the topic (the Java client leaves the name empty, "", not null).
  if (rt.name === null || rt.topicId !== ZERO_UUID) {
    const t = rt.topicId !== ZERO_UUID ? await b.log.topicById(rt.topicId) : null;
    if (t && !authorize(ctx, b, Op.DESCRIBE, Resource.TOPIC, t.name)) return denied;
    return t ? await describeTopic(t, b, on) : { errorCode: ErrorCode.UNKNOWN_TOPIC_ID, name: null, topicId: rt.topicId, partitions: [] };
  }
  if (validateTopicName(rt.name)) return { errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION, name: rt.name, partitions: [] };
  if (!authorize(ctx, b, Op.DESCRIBE, Resource.TOPIC, rt.name)) return denied;
  const t = await b.log.topic(rt.name);
  if (!t && autoCreate && b.log.config.autoCreateTopics) {
    // Kafka: auto-creation needs CREATE on the cluster or on the topic.
    if (!authorizeCluster(ctx, b, Op.CREATE) && !authorize(ctx, b, Op.CREATE, Resource.TOPIC, rt.name)) return denied;
    return { autoCreate: rt.name };
  }
  if (!t) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name: rt.name, partitions: [] };
  return await describeTopic(t, b, on);
}

async function describeTopic(t: TopicRecord, b: BrokerServices, on: Listener): Promise<TopicAnswer> {
  // A stored record with an unusable partition count is not served (the broker logged it); never enumerate it.
  const isInternal = isInternalTopic(t.name);
  if (quarantinedCount(t) !== null || (!isInternal && !usablePartitionCount(t.partitions, b.config))) {
    return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name: t.name, topicId: t.id, isInternal, partitions: [] };
  }
  // A partition nobody leads yet (a new topic) is claimed now if it is ours, instead of at the next leadership tick.
  await Promise.all(Array.from({ length: t.partitions }, (_, p) => {
    const unit = leaseUnitOf({ topic: t.name, partition: p });
    return b.cluster.leaderOf(unit) === null ? b.cluster.claim(unit).catch(() => false) : true;
  }));
  const partitions = [];
  for (let p = 0; p < t.partitions; p++) partitions.push(partitionMetadata(b, t, p, on));
  // isInternal: clients leave such topics out of pattern subscriptions (exclude.internal.topics).
  return { errorCode: ErrorCode.NONE, name: t.name, topicId: t.id, isInternal, partitions };
}
