import { f, message, s, type ApiDef } from '../schema.js';

export const OffsetForLeaderEpoch = {
  apiKey: 23,
  name: 'OffsetForLeaderEpoch',
  request: message('OffsetForLeaderEpochRequest', '2-4', '4+', [
    f('ReplicaId', 'int32', '3+', { default: -2 }),
    s('Topics', '[]OffsetForLeaderTopic', '0+', [
      f('Topic', 'string', '0+'),
      s('Partitions', '[]OffsetForLeaderPartition', '0+', [
        f('Partition', 'int32', '0+'),
        f('CurrentLeaderEpoch', 'int32', '2+', { default: -1 }),
        f('LeaderEpoch', 'int32', '0+'),
      ]),
    ]),
  ]),
  response: message('OffsetForLeaderEpochResponse', '2-4', '4+', [
    f('ThrottleTimeMs', 'int32', '2+'),
    s('Topics', '[]OffsetForLeaderTopicResult', '0+', [
      f('Topic', 'string', '0+'),
      s('Partitions', '[]EpochEndOffset', '0+', [
        f('ErrorCode', 'int16', '0+'),
        f('Partition', 'int32', '0+'),
        f('LeaderEpoch', 'int32', '1+', { default: -1 }),
        f('EndOffset', 'int64', '0+', { default: -1 }),
      ]),
    ]),
  ]),
} satisfies ApiDef;
