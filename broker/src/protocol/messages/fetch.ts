import { f, message, s, type ApiDef } from '../schema.js';

export const Fetch = {
  apiKey: 1,
  name: 'Fetch',
  request: message('FetchRequest', '4-16', '12+', [
    f('ClusterId', 'string', '12+', { nullable: '12+', tagged: '12+', tag: 0, default: null }),
    f('ReplicaId', 'int32', '0-14', { default: -1 }),
    s('ReplicaState', 'ReplicaState', '15+', [
      f('ReplicaId', 'int32', '15+', { default: -1 }),
      f('ReplicaEpoch', 'int64', '15+', { default: -1 }),
    ], { tagged: '15+', tag: 1 }),
    f('MaxWaitMs', 'int32', '0+'),
    f('MinBytes', 'int32', '0+'),
    f('MaxBytes', 'int32', '3+', { default: 2147483647 }),
    f('IsolationLevel', 'int8', '4+', { default: 0 }),
    f('SessionId', 'int32', '7+', { default: 0 }),
    f('SessionEpoch', 'int32', '7+', { default: -1 }),
    s('Topics', '[]FetchTopic', '0+', [
      f('Topic', 'string', '0-12'),
      f('TopicId', 'uuid', '13+'),
      s('Partitions', '[]FetchPartition', '0+', [
        f('Partition', 'int32', '0+'),
        f('CurrentLeaderEpoch', 'int32', '9+', { default: -1 }),
        f('FetchOffset', 'int64', '0+'),
        f('LastFetchedEpoch', 'int32', '12+', { default: -1 }),
        f('LogStartOffset', 'int64', '5+', { default: -1 }),
        f('PartitionMaxBytes', 'int32', '0+'),
      ]),
    ]),
    s('ForgottenTopicsData', '[]ForgottenTopic', '7+', [
      f('Topic', 'string', '7-12'),
      f('TopicId', 'uuid', '13+'),
      f('Partitions', '[]int32', '7+'),
    ]),
    f('RackId', 'string', '11+', { default: '' }),
  ]),
  response: message('FetchResponse', '4-16', '12+', [
    f('ThrottleTimeMs', 'int32', '1+'),
    f('ErrorCode', 'int16', '7+'),
    f('SessionId', 'int32', '7+', { default: 0 }),
    s('Responses', '[]FetchableTopicResponse', '0+', [
      f('Topic', 'string', '0-12'),
      f('TopicId', 'uuid', '13+'),
      s('Partitions', '[]PartitionData', '0+', [
        f('PartitionIndex', 'int32', '0+'),
        f('ErrorCode', 'int16', '0+'),
        f('HighWatermark', 'int64', '0+'),
        f('LastStableOffset', 'int64', '4+', { default: -1 }),
        f('LogStartOffset', 'int64', '5+', { default: -1 }),
        s('DivergingEpoch', 'EpochEndOffset', '12+', [
          f('Epoch', 'int32', '12+', { default: -1 }),
          f('EndOffset', 'int64', '12+', { default: -1 }),
        ], { tagged: '12+', tag: 0 }),
        s('CurrentLeader', 'LeaderIdAndEpoch', '12+', [
          f('LeaderId', 'int32', '12+', { default: -1 }),
          f('LeaderEpoch', 'int32', '12+', { default: -1 }),
        ], { tagged: '12+', tag: 1 }),
        s('SnapshotId', 'SnapshotId', '12+', [
          f('EndOffset', 'int64', '0+', { default: -1 }),
          f('Epoch', 'int32', '0+', { default: -1 }),
        ], { tagged: '12+', tag: 2 }),
        s('AbortedTransactions', '[]AbortedTransaction', '4+', [
          f('ProducerId', 'int64', '4+'),
          f('FirstOffset', 'int64', '4+'),
        ], { nullable: '4+' }),
        f('PreferredReadReplica', 'int32', '11+', { default: -1 }),
        f('Records', 'records', '0+', { nullable: '0+' }),
      ]),
    ]),
    s('NodeEndpoints', '[]NodeEndpoint', '16+', [
      f('NodeId', 'int32', '16+'),
      f('Host', 'string', '16+'),
      f('Port', 'int32', '16+'),
      f('Rack', 'string', '16+', { nullable: '16+', default: null }),
    ], { tagged: '16+', tag: 0 }),
  ]),
} satisfies ApiDef;
