// ShareGroupDescribe (key 77), KIP-932: version 1 is the stable one (Kafka 4.1+;
// version 0 was 4.0's early access).
import { f, message, s, type ApiDef } from '../schema.js';

export const ShareGroupDescribe = {
  apiKey: 77,
  name: 'ShareGroupDescribe',
  request: message('ShareGroupDescribeRequest', '1', '1+', [
    f('GroupIds', '[]string', '1+'),
    f('IncludeAuthorizedOperations', 'bool', '1+'),
  ]),
  response: message('ShareGroupDescribeResponse', '1', '1+', [
    f('ThrottleTimeMs', 'int32', '1+'),
    s('Groups', '[]DescribedGroup', '1+', [
      f('ErrorCode', 'int16', '1+'),
      f('ErrorMessage', 'string', '1+', { nullable: '1+', default: null }),
      f('GroupId', 'string', '1+'),
      f('GroupState', 'string', '1+'),
      f('GroupEpoch', 'int32', '1+'),
      f('AssignmentEpoch', 'int32', '1+'),
      f('AssignorName', 'string', '1+'),
      s('Members', '[]Member', '1+', [
        f('MemberId', 'string', '1+'),
        f('RackId', 'string', '1+', { nullable: '1+', default: null }),
        f('MemberEpoch', 'int32', '1+'),
        f('ClientId', 'string', '1+'),
        f('ClientHost', 'string', '1+'),
        f('SubscribedTopicNames', '[]string', '1+'),
        s('Assignment', 'Assignment', '1+', [
          s('TopicPartitions', '[]TopicPartitions', '1+', [
            f('TopicId', 'uuid', '1+'),
            f('TopicName', 'string', '1+'),
            f('Partitions', '[]int32', '1+'),
          ]),
        ]),
      ]),
      f('AuthorizedOperations', 'int32', '1+', { default: -2147483648 }),
    ]),
  ]),
} satisfies ApiDef;
