import { f, message, s, type ApiDef } from '../schema.js';

export const ListGroups = {
  apiKey: 16,
  name: 'ListGroups',
  request: message('ListGroupsRequest', '0-5', '3+', [
    f('StatesFilter', '[]string', '4+'),
    f('TypesFilter', '[]string', '5+'),
  ]),
  response: message('ListGroupsResponse', '0-5', '3+', [
    f('ThrottleTimeMs', 'int32', '1+'),
    f('ErrorCode', 'int16', '0+'),
    s('Groups', '[]ListedGroup', '0+', [
      f('GroupId', 'string', '0+'),
      f('ProtocolType', 'string', '0+'),
      f('GroupState', 'string', '4+'),
      f('GroupType', 'string', '5+'),
    ]),
  ]),
} satisfies ApiDef;
