// ConsumerGroupDescribe (key 69): v0 (KIP-848); v1 adds each member's type (KIP-1099).
import { f, message, s, type ApiDef } from '../schema.js';

const topicPartitions = s('TopicPartitions', '[]TopicPartitions', '0+', [
  f('TopicId', 'uuid', '0+'),
  f('TopicName', 'string', '0+'),
  f('Partitions', '[]int32', '0+'),
]);

export const ConsumerGroupDescribe = {
  apiKey: 69,
  name: 'ConsumerGroupDescribe',
  request: message('ConsumerGroupDescribeRequest', '0-1', '0+', [
    f('GroupIds', '[]string', '0+'),
    f('IncludeAuthorizedOperations', 'bool', '0+'),
  ]),
  response: message('ConsumerGroupDescribeResponse', '0-1', '0+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    s('Groups', '[]DescribedGroup', '0+', [
      f('ErrorCode', 'int16', '0+'),
      f('ErrorMessage', 'string', '0+', { nullable: '0+', default: null }),
      f('GroupId', 'string', '0+'),
      f('GroupState', 'string', '0+'),
      f('GroupEpoch', 'int32', '0+'),
      f('AssignmentEpoch', 'int32', '0+'),
      f('AssignorName', 'string', '0+'),
      s('Members', '[]Member', '0+', [
        f('MemberId', 'string', '0+'),
        f('InstanceId', 'string', '0+', { nullable: '0+', default: null }),
        f('RackId', 'string', '0+', { nullable: '0+', default: null }),
        f('MemberEpoch', 'int32', '0+'),
        f('ClientId', 'string', '0+'),
        f('ClientHost', 'string', '0+'),
        f('SubscribedTopicNames', '[]string', '0+'),
        f('SubscribedTopicRegex', 'string', '0+', { nullable: '0+', default: null }),
        s('Assignment', 'Assignment', '0+', [topicPartitions]),
        s('TargetAssignment', 'Assignment', '0+', [topicPartitions]),
        // v1 (KIP-1099): -1 unknown, 0 a classic member (JoinGroup/SyncGroup) in a consumer group, 1 a consumer-protocol member.
        f('MemberType', 'int8', '1+', { default: -1 }),
      ]),
      f('AuthorizedOperations', 'int32', '0+', { default: -2147483648 }),
    ]),
  ]),
} satisfies ApiDef;
