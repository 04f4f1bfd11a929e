import { f, message, s, type ApiDef } from '../schema.js';

export const DeleteGroups = {
  apiKey: 42,
  name: 'DeleteGroups',
  request: message('DeleteGroupsRequest', '0-2', '2+', [
    f('GroupsNames', '[]string', '0+'),
  ]),
  response: message('DeleteGroupsResponse', '0-2', '2+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    s('Results', '[]DeletableGroupResult', '0+', [
      f('GroupId', 'string', '0+'),
      f('ErrorCode', 'int16', '0+'),
    ]),
  ]),
} satisfies ApiDef;
