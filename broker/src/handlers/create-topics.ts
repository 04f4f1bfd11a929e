// CreateTopics (key 19), v2-v7.
//   v2: the oldest served: validateOnly and per-topic error messages (from v1), and
//       the throttle time.
//   v3: answered before throttling.
//   v4: partitions and replication factor may be -1, the broker's defaults (KIP-464).
//   v5: flexible encoding; the answer carries the topic's partitions, replication
//       factor and configs (KIP-525).
//   v6: THROTTLING_QUOTA_EXCEEDED becomes a possible error (KIP-599).
//   v7: the answer carries the new topic's id.
// Needs CREATE on the cluster or on the topic; the configs are validated as Kafka
// does, and shown in the answer only with DESCRIBE_CONFIGS (else topicConfigErrorCode).
import { CreateTopics } from '../protocol/messages/create-topics.js';
import { ErrorCode, KafkaError, codeName } from '../../../common/errors.js';
import { validateTopicName } from '../log/log-manager.js';
import { resolveTopicConfigs, SOURCE_ID, validateTopicConfig, validateTopicConfigSet } from '../topics/topic-configs.js';
import type { BrokerServices, HandlerOf } from './support/types.js';
import type { Element, RequestOf, ResponseOf } from '../protocol/typed.js';
import { liveBrokerCount } from './support/cluster-view.js';
import { Op, Resource, authorize, authorizeCluster } from './support/authorize.js';

type CreatableTopic = Element<RequestOf<typeof CreateTopics>['topics']>;
type TopicAnswer = Element<ResponseOf<typeof CreateTopics>['topics']>;

export const createTopicsHandler: HandlerOf<typeof CreateTopics> = {
  api: CreateTopics,
  minVersion: 2,
  maxVersion: 7,
  async handle(req, ctx, b) {
    const topics = [];
    // Kafka: CREATE on the cluster allows every topic, else CREATE on each topic.
    const onCluster = authorizeCluster(ctx, b, Op.CREATE);
    for (const t of req.topics) {
      const access = { create: onCluster || authorize(ctx, b, Op.CREATE, Resource.TOPIC, t.name), describeConfigs: authorize(ctx, b, Op.DESCRIBE_CONFIGS, Resource.TOPIC, t.name) };
      topics.push(await createOne(b, t, req.validateOnly, access));
    }
    return { throttleTimeMs: 0, topics };
  },
};

/** What the principal may do with the topic: create it; see its configs in the answer (Kafka: DESCRIBE_CONFIGS, else topicConfigErrorCode). */
interface Access { create: boolean; describeConfigs: boolean }

async function createOne(b: BrokerServices, t: CreatableTopic, validateOnly: boolean, access: Access): Promise<TopicAnswer> {
  const err = (code: number, msg: string) => ({ name: t.name, errorCode: code, errorMessage: msg, numPartitions: -1, replicationFactor: -1, configs: [] });
  if (!access.create) return err(ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Authorization failed.');
  const nameError = validateTopicName(t.name);
  if (nameError) return err(ErrorCode.INVALID_TOPIC_EXCEPTION, nameError);
  let partitions = t.numPartitions;
  let rf = t.replicationFactor;
  if (t.assignments.length > 0) {
    if (partitions !== -1 || rf !== -1) return err(ErrorCode.INVALID_REQUEST, 'Both numPartitions or replicationFactor and replicasAssignments were set.');
    partitions = t.assignments.length;
    rf = t.assignments[0]!.brokerIds.length;
  }
  if (partitions === -1) partitions = b.config.numPartitions;
  if (rf === -1) rf = b.config.defaultReplicationFactor;
  if (partitions <= 0) return err(ErrorCode.INVALID_PARTITIONS, 'Number of partitions must be larger than 0.');
  if (rf <= 0) return err(ErrorCode.INVALID_REPLICATION_FACTOR, 'Replication factor must be larger than 0.');
  const brokers = liveBrokerCount(b);
  if (rf > brokers) return err(ErrorCode.INVALID_REPLICATION_FACTOR, `Replication factor: ${rf} larger than available brokers: ${brokers}.`);
  const configs: Record<string, string> = {};
  for (const c of t.configs) {
    const problem = validateTopicConfig(c.name, c.value);
    if (problem) return err(ErrorCode.INVALID_CONFIG, problem);
    if (c.value !== null) configs[c.name] = c.value;
  }
  const conflict = validateTopicConfigSet(configs, b.config);
  if (conflict) return err(ErrorCode.INVALID_CONFIG, conflict);
  try {
    const created = await b.log.createTopic(t.name, partitions, configs, validateOnly);
    if (!access.describeConfigs) {
      return { name: t.name, topicId: created.id, errorCode: ErrorCode.NONE, errorMessage: null, numPartitions: -1, replicationFactor: -1, configs: [], topicConfigErrorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED };
    }
    return {
      name: t.name,
      topicId: created.id,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      numPartitions: partitions,
      replicationFactor: rf,
      configs: resolveTopicConfigs(configs, b.config).map((c) => ({
        name: c.name, value: c.value, readOnly: false, configSource: SOURCE_ID[c.source], isSensitive: false,
      })),
    };
  } catch (e) {
    if (e instanceof KafkaError) return err(e.code, e.message ?? codeName(e.code));
    throw e;
  }
}
