import { f, message, s, type ApiDef } from '../schema.js';

// v0-v3: one transaction per request (the client form); v4+: a batch of
// transactions, sent by brokers (KIP-890), with VerifyOnly.
const topic = (versions: string) => [
  f('Name', 'string', versions),
  f('Partitions', '[]int32', versions),
];

const topicResult = (versions: string) => [
  f('Name', 'string', versions),
  s('ResultsByPartition', '[]AddPartitionsToTxnPartitionResult', versions, [
    f('PartitionIndex', 'int32', versions),
    f('PartitionErrorCode', 'int16', versions),
  ]),
];

export const AddPartitionsToTxn = {
  apiKey: 24,
  name: 'AddPartitionsToTxn',
  request: message('AddPartitionsToTxnRequest', '0-5', '3+', [
    s('Transactions', '[]AddPartitionsToTxnTransaction', '4+', [
      f('TransactionalId', 'string', '4+'),
      f('ProducerId', 'int64', '4+'),
      f('ProducerEpoch', 'int16', '4+'),
      f('VerifyOnly', 'bool', '4+', { default: false }),
      s('Topics', '[]AddPartitionsToTxnTopic', '4+', topic('4+')),
    ]),
    f('V3AndBelowTransactionalId', 'string', '0-3'),
    f('V3AndBelowProducerId', 'int64', '0-3'),
    f('V3AndBelowProducerEpoch', 'int16', '0-3'),
    s('V3AndBelowTopics', '[]AddPartitionsToTxnTopic', '0-3', topic('0-3')),
  ]),
  response: message('AddPartitionsToTxnResponse', '0-5', '3+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    f('ErrorCode', 'int16', '4+'),
    s('ResultsByTransaction', '[]AddPartitionsToTxnResult', '4+', [
      f('TransactionalId', 'string', '4+'),
      s('TopicResults', '[]AddPartitionsToTxnTopicResult', '4+', topicResult('4+')),
    ]),
    s('ResultsByTopicV3AndBelow', '[]AddPartitionsToTxnTopicResult', '0-3', topicResult('0-3')),
  ]),
} satisfies ApiDef;
