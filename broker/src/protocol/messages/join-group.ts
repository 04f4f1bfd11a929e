import { f, message, s, type ApiDef } from '../schema.js';

export const JoinGroup = {
  apiKey: 11,
  name: 'JoinGroup',
  request: message('JoinGroupRequest', '0-9', '6+', [
    f('GroupId', 'string', '0+'),
    f('SessionTimeoutMs', 'int32', '0+'),
    f('RebalanceTimeoutMs', 'int32', '1+', { default: -1 }),
    f('MemberId', 'string', '0+'),
    f('GroupInstanceId', 'string', '5+', { nullable: '5+', default: null }),
    f('ProtocolType', 'string', '0+'),
    s('Protocols', '[]JoinGroupRequestProtocol', '0+', [
      f('Name', 'string', '0+'),
      f('Metadata', 'bytes', '0+'),
    ]),
    f('Reason', 'string', '8+', { nullable: '8+', default: null }),
  ]),
  response: message('JoinGroupResponse', '0-9', '6+', [
    f('ThrottleTimeMs', 'int32', '2+'),
    f('ErrorCode', 'int16', '0+'),
    f('GenerationId', 'int32', '0+', { default: -1 }),
    f('ProtocolType', 'string', '7+', { nullable: '7+', default: null }),
    f('ProtocolName', 'string', '0+', { nullable: '7+' }),
    f('Leader', 'string', '0+'),
    f('SkipAssignment', 'bool', '9+', { default: false }),
    f('MemberId', 'string', '0+'),
    s('Members', '[]JoinGroupResponseMember', '0+', [
      f('MemberId', 'string', '0+'),
      f('GroupInstanceId', 'string', '5+', { nullable: '5+', default: null }),
      f('Metadata', 'bytes', '0+'),
    ]),
  ]),
} satisfies ApiDef;
