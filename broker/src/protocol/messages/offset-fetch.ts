import { f, message, s, type ApiDef } from '../schema.js';

export const OffsetFetch = {
  apiKey: 9,
  name: 'OffsetFetch',
  request: message('OffsetFetchRequest', '0-9', '6+', [
    f('GroupId', 'string', '0-7'),
    s('Topics', '[]OffsetFetchRequestTopic', '0-7', [
      f('Name', 'string', '0-7'),
      f('PartitionIndexes', '[]int32', '0-7'),
    ], { nullable: '2-7' }),
    s('Groups', '[]OffsetFetchRequestGroup', '8+', [
      f('GroupId', 'string', '8+'),
      f('MemberId', 'string', '9+', { nullable: '9+', default: null }),
      f('MemberEpoch', 'int32', '9+', { default: -1 }),
      s('Topics', '[]OffsetFetchRequestTopics', '8+', [
        f('Name', 'string', '8+'),
        f('PartitionIndexes', '[]int32', '8+'),
      ], { nullable: '8+' }),
    ]),
    f('RequireStable', 'bool', '7+', { default: false }),
  ]),
  response: message('OffsetFetchResponse', '0-9', '6+', [
    f('ThrottleTimeMs', 'int32', '3+'),
    s('Topics', '[]OffsetFetchResponseTopic', '0-7', [
      f('Name', 'string', '0-7'),
      s('Partitions', '[]OffsetFetchResponsePartition', '0-7', [
        f('PartitionIndex', 'int32', '0-7'),
        f('CommittedOffset', 'int64', '0-7'),
        f('CommittedLeaderEpoch', 'int32', '5-7', { default: -1 }),
        f('Metadata', 'string', '0-7', { nullable: '0-7' }),
        f('ErrorCode', 'int16', '0-7'),
      ]),
    ]),
    f('ErrorCode', 'int16', '2-7', { default: 0 }),
    s('Groups', '[]OffsetFetchResponseGroup', '8+', [
      f('GroupId', 'string', '8+'),
      s('Topics', '[]OffsetFetchResponseTopics', '8+', [
        f('Name', 'string', '8+'),
        s('Partitions', '[]OffsetFetchResponsePartitions', '8+', [
          f('PartitionIndex', 'int32', '8+'),
          f('CommittedOffset', 'int64', '8+'),
          f('CommittedLeaderEpoch', 'int32', '8+', { default: -1 }),
          f('Metadata', 'string', '8+', { nullable: '8+' }),
          f('ErrorCode', 'int16', '8+'),
        ]),
      ]),
      f('ErrorCode', 'int16', '8+', { default: 0 }),
    ]),
  ]),
} satisfies ApiDef;
