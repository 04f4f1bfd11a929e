// AlterShareGroupOffsets (key 91), v0 (KIP-932): sets the start offset of an
// empty share group's share-partitions. Definition written from the Kafka 4.x
// client's message classes (no spec in shared/).
import { f, message, s, type ApiDef } from '../schema.js';

export const AlterShareGroupOffsets = {
  apiKey: 91,
  name: 'AlterShareGroupOffsets',
  request: message('AlterShareGroupOffsetsRequest', '0', '0+', [
    f('GroupId', 'string', '0+'),
    s('Topics', '[]AlterShareGroupOffsetsRequestTopic', '0+', [
      f('TopicName', 'string', '0+'),
      s('Partitions', '[]AlterShareGroupOffsetsRequestPartition', '0+', [
        f('PartitionIndex', 'int32', '0+'),
        f('StartOffset', 'int64', '0+'),
      ]),
    ]),
  ]),
  response: message('AlterShareGroupOffsetsResponse', '0', '0+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    f('ErrorCode', 'int16', '0+'),
    f('ErrorMessage', 'string', '0+', { nullable: '0+', default: null }),
    s('Responses', '[]AlterShareGroupOffsetsResponseTopic', '0+', [
      f('TopicName', 'string', '0+'),
      f('TopicId', 'uuid', '0+'),
      s('Partitions', '[]AlterShareGroupOffsetsResponsePartition', '0+', [
        f('PartitionIndex', 'int32', '0+'),
        f('ErrorCode', 'int16', '0+'),
        f('ErrorMessage', 'string', '0+', { nullable: '0+', default: null }),
      ]),
    ]),
  ]),
} satisfies ApiDef;
