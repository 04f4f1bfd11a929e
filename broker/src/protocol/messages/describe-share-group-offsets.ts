// DescribeShareGroupOffsets (key 90), v0-v1 (KIP-932): each share-partition's
// start offset (SPSO); v1 adds its lag. Definition written from the Kafka 4.x
// client's message classes (no spec in shared/).
import { f, message, s, type ApiDef } from '../schema.js';

export const DescribeShareGroupOffsets = {
  apiKey: 90,
  name: 'DescribeShareGroupOffsets',
  request: message('DescribeShareGroupOffsetsRequest', '0-1', '0+', [
    s('Groups', '[]DescribeShareGroupOffsetsRequestGroup', '0+', [
      f('GroupId', 'string', '0+'),
      s('Topics', '[]DescribeShareGroupOffsetsRequestTopic', '0+', [
        f('TopicName', 'string', '0+'),
        f('Partitions', '[]int32', '0+'),
      ], { nullable: '0+' }),
    ]),
  ]),
  response: message('DescribeShareGroupOffsetsResponse', '0-1', '0+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    s('Groups', '[]DescribeShareGroupOffsetsResponseGroup', '0+', [
      f('GroupId', 'string', '0+'),
      s('Topics', '[]DescribeShareGroupOffsetsResponseTopic', '0+', [
        f('TopicName', 'string', '0+'),
        f('TopicId', 'uuid', '0+'),
        s('Partitions', '[]DescribeShareGroupOffsetsResponsePartition', '0+', [
          f('PartitionIndex', 'int32', '0+'),
          f('StartOffset', 'int64', '0+'),
          f('LeaderEpoch', 'int32', '0+'),
          f('Lag', 'int64', '1+', { default: -1 }),
          f('ErrorCode', 'int16', '0+'),
          f('ErrorMessage', 'string', '0+', { nullable: '0+', default: null }),
        ]),
      ]),
      f('ErrorCode', 'int16', '0+'),
      f('ErrorMessage', 'string', '0+', { nullable: '0+', default: null }),
    ]),
  ]),
} satisfies ApiDef;
