import { f, message, s, type ApiDef } from '../schema.js';

export const OffsetCommit = {
  apiKey: 8,
  name: 'OffsetCommit',
  request: message('OffsetCommitRequest', '0-9', '8+', [
    f('GroupId', 'string', '0+'),
    f('GenerationIdOrMemberEpoch', 'int32', '1+', { default: -1 }),
    f('MemberId', 'string', '1+'),
    f('GroupInstanceId', 'string', '7+', { nullable: '7+', default: null }),
    f('RetentionTimeMs', 'int64', '2-4', { default: -1 }),
    s('Topics', '[]OffsetCommitRequestTopic', '0+', [
      f('Name', 'string', '0+'),
      s('Partitions', '[]OffsetCommitRequestPartition', '0+', [
        f('PartitionIndex', 'int32', '0+'),
        f('CommittedOffset', 'int64', '0+'),
        f('CommittedLeaderEpoch', 'int32', '6+', { default: -1 }),
        f('CommitTimestamp', 'int64', '1', { default: -1 }),
        f('CommittedMetadata', 'string', '0+', { nullable: '0+' }),
      ]),
    ]),
  ]),
  response: message('OffsetCommitResponse', '0-9', '8+', [
    f('ThrottleTimeMs', 'int32', '3+'),
    s('Topics', '[]OffsetCommitResponseTopic', '0+', [
      f('Name', 'string', '0+'),
      s('Partitions', '[]OffsetCommitResponsePartition', '0+', [
        f('PartitionIndex', 'int32', '0+'),
        f('ErrorCode', 'int16', '0+'),
      ]),
    ]),
  ]),
} satisfies ApiDef;
