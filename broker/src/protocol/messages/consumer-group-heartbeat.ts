import { f, message, s, type ApiDef } from '../schema.js';

export const ConsumerGroupHeartbeat = {
  apiKey: 68,
  name: 'ConsumerGroupHeartbeat',
  request: message('ConsumerGroupHeartbeatRequest', '0-1', '0+', [
    f('GroupId', 'string', '0+'),
    f('MemberId', 'string', '0+'),
    f('MemberEpoch', 'int32', '0+'),
    f('InstanceId', 'string', '0+', { nullable: '0+', default: null }),
    f('RackId', 'string', '0+', { nullable: '0+', default: null }),
    f('RebalanceTimeoutMs', 'int32', '0+', { default: -1 }),
    f('SubscribedTopicNames', '[]string', '0+', { nullable: '0+', default: null }),
    f('SubscribedTopicRegex', 'string', '1+', { nullable: '1+', default: null }),
    f('ServerAssignor', 'string', '0+', { nullable: '0+', default: null }),
    s('TopicPartitions', '[]TopicPartitions', '0+', [
      f('TopicId', 'uuid', '0+'),
      f('Partitions', '[]int32', '0+'),
    ], { nullable: '0+', default: null }),
  ]),
  response: message('ConsumerGroupHeartbeatResponse', '0-1', '0+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    f('ErrorCode', 'int16', '0+'),
    f('ErrorMessage', 'string', '0+', { nullable: '0+', default: null }),
    f('MemberId', 'string', '0+', { nullable: '0+', default: null }),
    f('MemberEpoch', 'int32', '0+'),
    f('HeartbeatIntervalMs', 'int32', '0+'),
    s('Assignment', 'Assignment', '0+', [
      s('TopicPartitions', '[]TopicPartitions', '0+', [
        f('TopicId', 'uuid', '0+'),
        f('Partitions', '[]int32', '0+'),
      ]),
    ], { nullable: '0+', default: null }),
  ]),
} satisfies ApiDef;
