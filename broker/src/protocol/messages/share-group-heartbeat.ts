// ShareGroupHeartbeat (key 76), KIP-932. Version 0 was Kafka 4.0's early
// access and was removed in 4.1; version 1 is the stable one (Kafka 4.1+).
import { f, message, s, type ApiDef } from '../schema.js';

export const ShareGroupHeartbeat = {
  apiKey: 76,
  name: 'ShareGroupHeartbeat',
  request: message('ShareGroupHeartbeatRequest', '1', '0+', [
    f('GroupId', 'string', '0+'),
    f('MemberId', 'string', '0+'),
    f('MemberEpoch', 'int32', '0+'),
    f('RackId', 'string', '0+', { nullable: '0+', default: null }),
    f('SubscribedTopicNames', '[]string', '0+', { nullable: '0+', default: null }),
  ]),
  response: message('ShareGroupHeartbeatResponse', '1', '0+', [
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
