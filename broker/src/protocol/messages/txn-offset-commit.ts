import { f, message, s, type ApiDef } from '../schema.js';

// v5 (Kafka 4.0, KIP-890 part 2) has the body of v4: it adds the group's
// `__consumer_offsets` partition to the transaction (transactions v2).
export const TxnOffsetCommit = {
  apiKey: 28,
  name: 'TxnOffsetCommit',
  request: message('TxnOffsetCommitRequest', '0-5', '3+', [
    f('TransactionalId', 'string', '0+'),
    f('GroupId', 'string', '0+'),
    f('ProducerId', 'int64', '0+'),
    f('ProducerEpoch', 'int16', '0+'),
    // v3+ (KIP-447): the group generation and member, checked like OffsetCommit.
    f('GenerationId', 'int32', '3+', { default: -1 }),
    f('MemberId', 'string', '3+', { default: '' }),
    f('GroupInstanceId', 'string', '3+', { nullable: '3+', default: null }),
    s('Topics', '[]TxnOffsetCommitRequestTopic', '0+', [
      f('Name', 'string', '0+'),
      s('Partitions', '[]TxnOffsetCommitRequestPartition', '0+', [
        f('PartitionIndex', 'int32', '0+'),
        f('CommittedOffset', 'int64', '0+'),
        f('CommittedLeaderEpoch', 'int32', '2+', { default: -1 }),
        f('CommittedMetadata', 'string', '0+', { nullable: '0+' }),
      ]),
    ]),
  ]),
  response: message('TxnOffsetCommitResponse', '0-5', '3+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    s('Topics', '[]TxnOffsetCommitResponseTopic', '0+', [
      f('Name', 'string', '0+'),
      s('Partitions', '[]TxnOffsetCommitResponsePartition', '0+', [
        f('PartitionIndex', 'int32', '0+'),
        f('ErrorCode', 'int16', '0+'),
      ]),
    ]),
  ]),
} satisfies ApiDef;
