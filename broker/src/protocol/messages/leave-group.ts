import { f, message, s, type ApiDef } from '../schema.js';

export const LeaveGroup = {
  apiKey: 13,
  name: 'LeaveGroup',
  request: message('LeaveGroupRequest', '0-5', '4+', [
    f('GroupId', 'string', '0+'),
    f('MemberId', 'string', '0-2'),
    s('Members', '[]MemberIdentity', '3+', [
      f('MemberId', 'string', '3+'),
      f('GroupInstanceId', 'string', '3+', { nullable: '3+', default: null }),
      f('Reason', 'string', '5+', { nullable: '5+', default: null }),
    ]),
  ]),
  response: message('LeaveGroupResponse', '0-5', '4+', [
    f('ThrottleTimeMs', 'int32', '1+'),
    f('ErrorCode', 'int16', '0+'),
    s('Members', '[]MemberResponse', '3+', [
      f('MemberId', 'string', '3+'),
      f('GroupInstanceId', 'string', '3+', { nullable: '3+' }),
      f('ErrorCode', 'int16', '3+'),
    ]),
  ]),
} satisfies ApiDef;
