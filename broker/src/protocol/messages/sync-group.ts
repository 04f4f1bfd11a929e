import { f, message, s, type ApiDef } from '../schema.js';

export const SyncGroup = {
  apiKey: 14,
  name: 'SyncGroup',
  request: message('SyncGroupRequest', '0-5', '4+', [
    f('GroupId', 'string', '0+'),
    f('GenerationId', 'int32', '0+'),
    f('MemberId', 'string', '0+'),
    f('GroupInstanceId', 'string', '3+', { nullable: '3+', default: null }),
    f('ProtocolType', 'string', '5+', { nullable: '5+', default: null }),
    f('ProtocolName', 'string', '5+', { nullable: '5+', default: null }),
    s('Assignments', '[]SyncGroupRequestAssignment', '0+', [
      f('MemberId', 'string', '0+'),
      f('Assignment', 'bytes', '0+'),
    ]),
  ]),
  response: message('SyncGroupResponse', '0-5', '4+', [
    f('ThrottleTimeMs', 'int32', '1+'),
    f('ErrorCode', 'int16', '0+'),
    f('ProtocolType', 'string', '5+', { nullable: '5+', default: null }),
    f('ProtocolName', 'string', '5+', { nullable: '5+', default: null }),
    f('Assignment', 'bytes', '0+'),
  ]),
} satisfies ApiDef;
