import { f, message, s, type ApiDef } from '../schema.js';

export const ListOffsets = {
  apiKey: 2,
  name: 'ListOffsets',
  request: message('ListOffsetsRequest', '1-10', '6+', [
    f('ReplicaId', 'int32', '0+'),
    f('IsolationLevel', 'int8', '2+'),
    s('Topics', '[]ListOffsetsTopic', '0+', [
      f('Name', 'string', '0+'),
      s('Partitions', '[]ListOffsetsPartition', '0+', [
        f('PartitionIndex', 'int32', '0+'),
        f('CurrentLeaderEpoch', 'int32', '4+', { default: -1 }),
        f('Timestamp', 'int64', '0+'),
      ]),
    ]),
    f('TimeoutMs', 'int32', '10+'),
  ]),
  response: message('ListOffsetsResponse', '1-10', '6+', [
    f('ThrottleTimeMs', 'int32', '2+'),
    s('Topics', '[]ListOffsetsTopicResponse', '0+', [
      f('Name', 'string', '0+'),
      s('Partitions', '[]ListOffsetsPartitionResponse', '0+', [
        f('PartitionIndex', 'int32', '0+'),
        f('ErrorCode', 'int16', '0+'),
        f('Timestamp', 'int64', '1+', { default: -1 }),
        f('Offset', 'int64', '1+', { default: -1 }),
        f('LeaderEpoch', 'int32', '4+', { default: -1 }),
      ]),
    ]),
  ]),
} satisfies ApiDef;
