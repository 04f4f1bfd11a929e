import { f, message, s, type ApiDef } from '../schema.js';

export const Metadata = {
  apiKey: 3,
  name: 'Metadata',
  request: message('MetadataRequest', '0-12', '9+', [
    s('Topics', '[]MetadataRequestTopic', '0+', [
      f('TopicId', 'uuid', '10+'),
      f('Name', 'string', '0+', { nullable: '10+' }),
    ], { nullable: '1+' }),
    f('AllowAutoTopicCreation', 'bool', '4+', { default: true }),
    f('IncludeClusterAuthorizedOperations', 'bool', '8-10'),
    f('IncludeTopicAuthorizedOperations', 'bool', '8+'),
  ]),
  response: message('MetadataResponse', '0-12', '9+', [
    f('ThrottleTimeMs', 'int32', '3+'),
    s('Brokers', '[]MetadataResponseBroker', '0+', [
      f('NodeId', 'int32', '0+'),
      f('Host', 'string', '0+'),
      f('Port', 'int32', '0+'),
      f('Rack', 'string', '1+', { nullable: '1+', default: null }),
    ]),
    f('ClusterId', 'string', '2+', { nullable: '2+', default: null }),
    f('ControllerId', 'int32', '1+', { default: -1 }),
    s('Topics', '[]MetadataResponseTopic', '0+', [
      f('ErrorCode', 'int16', '0+'),
      f('Name', 'string', '0+', { nullable: '12+' }),
      f('TopicId', 'uuid', '10+'),
      f('IsInternal', 'bool', '1+', { default: false }),
      s('Partitions', '[]MetadataResponsePartition', '0+', [
        f('ErrorCode', 'int16', '0+'),
        f('PartitionIndex', 'int32', '0+'),
        f('LeaderId', 'int32', '0+'),
        f('LeaderEpoch', 'int32', '7+', { default: -1 }),
        f('ReplicaNodes', '[]int32', '0+'),
        f('IsrNodes', '[]int32', '0+'),
        f('OfflineReplicas', '[]int32', '5+'),
      ]),
      f('TopicAuthorizedOperations', 'int32', '8+', { default: -2147483648 }),
    ]),
    f('ClusterAuthorizedOperations', 'int32', '8-10', { default: -2147483648 }),
  ]),
} satisfies ApiDef;
