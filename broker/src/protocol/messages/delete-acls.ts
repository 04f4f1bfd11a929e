import { f, message, s, type ApiDef } from '../schema.js';

export const DeleteAcls: ApiDef = {
  apiKey: 31,
  name: 'DeleteAcls',
  request: message('DeleteAclsRequest', '0-3', '2+', [
    s('Filters', '[]DeleteAclsFilter', '0+', [
      f('ResourceTypeFilter', 'int8', '0+'),
      f('ResourceNameFilter', 'string', '0+', { nullable: '0+' }),
      f('PatternTypeFilter', 'int8', '1+', { default: 3 }),
      f('PrincipalFilter', 'string', '0+', { nullable: '0+' }),
      f('HostFilter', 'string', '0+', { nullable: '0+' }),
      f('Operation', 'int8', '0+'),
      f('PermissionType', 'int8', '0+'),
    ]),
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
        f('Principal', 'string', '0+'),
        f('Host', 'string', '0+'),
        f('Operation', 'int8', '0+'),
        f('PermissionType', 'int8', '0+'),
      ]),
    ]),
  ]),
};
