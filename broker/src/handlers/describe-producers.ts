// DescribeProducers (key 61), v0.
//   v0: the active producers of partitions (KIP-664); flexible encoding.
// Needs READ on the topic; answered from the partition's producer state, which
// `kafka-transactions abort` uses to find a hanging transaction.
import { DescribeProducers } from '../protocol/messages/describe-producers.js';
import { ErrorCode, KafkaError } from '../../../common/errors.js';
import type { HandlerOf } from './support/types.js';
import type { Element, ResponseOf } from '../protocol/typed.js';

type PartitionAnswer = Element<Element<ResponseOf<typeof DescribeProducers>['topics']>['partitions']>;
import { Op, Resource, authorize } from './support/authorize.js';

/** Idempotent and transactional producer state of led partitions, as `kafka-transactions describe-producers` shows it. */
export const describeProducersHandler: HandlerOf<typeof DescribeProducers> = {
  api: DescribeProducers,
  minVersion: 0,
  maxVersion: 0,
  async handle(req, ctx, b) {
    const topics = [];
    for (const rt of req.topics) {
      const partitions = [];
      const allowed = authorize(ctx, b, Op.READ, Resource.TOPIC, rt.name); // Kafka: READ on the topic
      for (const index of rt.partitionIndexes) {
        const out: PartitionAnswer = { partitionIndex: index, errorCode: ErrorCode.NONE, errorMessage: null, activeProducers: [] };
        try {
          if (!allowed) throw new KafkaError(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
          const p = await b.log.partition(rt.name, index);
          await p.ensureLoaded();
          out.activeProducers = p.producers.describe().map((s) => ({
            producerId: s.producerId, producerEpoch: s.epoch, lastSequence: s.lastSequence, lastTimestamp: s.lastTimestamp,
            // kafka-transactions abort --start-offset finds the hanging transaction by its start offset and takes the epochs from here.
            coordinatorEpoch: s.coordinatorEpoch, currentTxnStartOffset: s.txnFirstOffset,
          }));
        } catch (e) {
          if (!(e instanceof KafkaError)) throw e;
          out.errorCode = e.code;
          out.errorMessage = e.message;
        }
        partitions.push(out);
      }
      topics.push({ name: rt.name, partitions });
    }
    return { throttleTimeMs: 0, topics };
  },
};
