import { f, message, s, type ApiDef } from '../schema.js';
import { aclEntryFields, aclFilterFields } from './acl-fields.js';

export const DeleteAcls = {
  apiKey: 31,
  name: 'DeleteAcls',
  request: message('DeleteAclsRequest', '0-3', '2+', [
    s('Filters', '[]DeleteAclsFilter', '0+', aclFilterFields()),
  ]),
  response: message('DeleteAclsResponse', '0-3', '2+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    s('FilterResults', '[]DeleteAclsFilterResult', '0+', [
      f('ErrorCode', 'int16', '0+'),
      f('ErrorMessage', 'string', '0+', { nullable: '0+' }),
      s('MatchingAcls', '[]DeleteAclsMatchingAcl', '0+', [
        f('ErrorCode', 'int16', '0+'),
        f('ErrorMessage', 'string', '0+', { nullable: '0+' }),
        f('ResourceType', 'int8', '0+'),
        f('ResourceName', 'string', '0+'),
        f('PatternType', 'int8', '1+', { default: 3 }),
        ...aclEntryFields(),
      ]),
    ]),
  ]),
} satisfies ApiDef;
