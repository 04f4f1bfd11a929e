import { f, message, s, type ApiDef } from '../schema.js';

export const CreateTopics = {
  apiKey: 19,
  name: 'CreateTopics',
  request: message('CreateTopicsRequest', '2-7', '5+', [
    s('Topics', '[]CreatableTopic', '0+', [
      f('Name', 'string', '0+'),
      f('NumPartitions', 'int32', '0+'),
      f('ReplicationFactor', 'int16', '0+'),
      s('Assignments', '[]CreatableReplicaAssignment', '0+', [
        f('PartitionIndex', 'int32', '0+'),
        f('BrokerIds', '[]int32', '0+'),
      ]),
      s('Configs', '[]CreatableTopicConfig', '0+', [
        f('Name', 'string', '0+'),
        f('Value', 'string', '0+', { nullable: '0+' }),
      ]),
    ]),
    f('timeoutMs', 'int32', '0+', { default: 60000 }),
    f('validateOnly', 'bool', '1+', { default: false }),
  ]),
  response: message('CreateTopicsResponse', '2-7', '5+', [
    f('ThrottleTimeMs', 'int32', '2+'),
    s('Topics', '[]CreatableTopicResult', '0+', [
      f('Name', 'string', '0+'),
      f('TopicId', 'uuid', '7+'),
      f('ErrorCode', 'int16', '0+'),
      f('ErrorMessage', 'string', '1+', { nullable: '0+' }),
      f('TopicConfigErrorCode', 'int16', '5+', { tagged: '5+', tag: 0 }),
      f('NumPartitions', 'int32', '5+', { default: -1 }),
      f('ReplicationFactor', 'int16', '5+', { default: -1 }),
      s('Configs', '[]CreatableTopicConfigs', '5+', [
        f('Name', 'string', '5+'),
        f('Value', 'string', '5+', { nullable: '5+' }),
        f('ReadOnly', 'bool', '5+'),
        f('ConfigSource', 'int8', '5+', { default: -1 }),
        f('IsSensitive', 'bool', '5+'),
      ], { nullable: '5+' }),
    ]),
  ]),
} satisfies ApiDef;
