import { f, message, s, type ApiDef } from '../schema.js';

export const FindCoordinator = {
  apiKey: 10,
  name: 'FindCoordinator',
  request: message('FindCoordinatorRequest', '0-4', '3+', [
    f('Key', 'string', '0-3'),
    f('KeyType', 'int8', '1+', { default: 0 }),
    f('CoordinatorKeys', '[]string', '4+'),
  ]),
  response: message('FindCoordinatorResponse', '0-4', '3+', [
    f('ThrottleTimeMs', 'int32', '1+'),
    f('ErrorCode', 'int16', '0-3'),
    f('ErrorMessage', 'string', '1-3', { nullable: '1-3' }),
    f('NodeId', 'int32', '0-3'),
    f('Host', 'string', '0-3'),
    f('Port', 'int32', '0-3'),
    s('Coordinators', '[]Coordinator', '4+', [
      f('Key', 'string', '4+'),
      f('NodeId', 'int32', '4+'),
      f('Host', 'string', '4+'),
      f('Port', 'int32', '4+'),
      f('ErrorCode', 'int16', '4+'),
      f('ErrorMessage', 'string', '4+', { nullable: '4+' }),
    ]),
  ]),
} satisfies ApiDef;
