import { f, message, s, type ApiDef } from '../schema.js';

export const DescribeProducers = {
  apiKey: 61,
  name: 'DescribeProducers',
  request: message('DescribeProducersRequest', '0', '0+', [
    s('Topics', '[]TopicRequest', '0+', [
      f('Name', 'string', '0+'),
      f('PartitionIndexes', '[]int32', '0+'),
    ]),
  ]),
  response: message('DescribeProducersResponse', '0', '0+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    s('Topics', '[]TopicResponse', '0+', [
      f('Name', 'string', '0+'),
      s('Partitions', '[]PartitionResponse', '0+', [
        f('PartitionIndex', 'int32', '0+'),
        f('ErrorCode', 'int16', '0+'),
        f('ErrorMessage', 'string', '0+', { nullable: '0+', default: null }),
        s('ActiveProducers', '[]ProducerState', '0+', [
          f('ProducerId', 'int64', '0+'),
          f('ProducerEpoch', 'int32', '0+'),
          f('LastSequence', 'int32', '0+', { default: -1 }),
          f('LastTimestamp', 'int64', '0+', { default: -1 }),
          f('CoordinatorEpoch', 'int32', '0+'),
          f('CurrentTxnStartOffset', 'int64', '0+', { default: -1 }),
        ]),
      ]),
    ]),
  ]),
} satisfies ApiDef;
