import { f, message, type ApiDef } from '../schema.js';

export const Heartbeat = {
  apiKey: 12,
  name: 'Heartbeat',
  request: message('HeartbeatRequest', '0-4', '4+', [
    f('GroupId', 'string', '0+'),
    f('GenerationId', 'int32', '0+'),
    f('MemberId', 'string', '0+'),
    f('GroupInstanceId', 'string', '3+', { nullable: '3+', default: null }),
  ]),
  response: message('HeartbeatResponse', '0-4', '4+', [
    f('ThrottleTimeMs', 'int32', '1+'),
    f('ErrorCode', 'int16', '0+'),
  ]),
} satisfies ApiDef;
