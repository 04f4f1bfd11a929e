import { f, message, s, type ApiDef } from '../schema.js';

export const DescribeGroups = {
  apiKey: 15,
  name: 'DescribeGroups',
  request: message('DescribeGroupsRequest', '0-5', '5+', [
    f('Groups', '[]string', '0+'),
    f('IncludeAuthorizedOperations', 'bool', '3+'),
  ]),
  response: message('DescribeGroupsResponse', '0-5', '5+', [
    f('ThrottleTimeMs', 'int32', '1+'),
    s('Groups', '[]DescribedGroup', '0+', [
      f('ErrorCode', 'int16', '0+'),
      f('GroupId', 'string', '0+'),
      f('GroupState', 'string', '0+'),
      f('ProtocolType', 'string', '0+'),
      f('ProtocolData', 'string', '0+'),
      s('Members', '[]DescribedGroupMember', '0+', [
        f('MemberId', 'string', '0+'),
        f('GroupInstanceId', 'string', '4+', { nullable: '4+', default: null }),
        f('ClientId', 'string', '0+'),
        f('ClientHost', 'string', '0+'),
        f('MemberMetadata', 'bytes', '0+'),
        f('MemberAssignment', 'bytes', '0+'),
      ]),
      f('AuthorizedOperations', 'int32', '3+', { default: -2147483648 }),
    ]),
  ]),
} satisfies ApiDef;
