import { f, message, s, type ApiDef } from '../schema.js';

export const DescribeAcls: ApiDef = {
  apiKey: 29,
  name: 'DescribeAcls',
  request: message('DescribeAclsRequest', '0-3', '2+', [
    f('ResourceTypeFilter', 'int8', '0+'),
    f('ResourceNameFilter', 'string', '0+', { nullable: '0+' }),
    f('PatternTypeFilter', 'int8', '1+', { default: 3 }),
    f('PrincipalFilter', 'string', '0+', { nullable: '0+' }),
    f('HostFilter', 'string', '0+', { nullable: '0+' }),
    f('Operation', 'int8', '0+'),
    f('PermissionType', 'int8', '0+'),
  ]),
  response: message('DescribeAclsResponse', '0-3', '2+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    f('ErrorCode', 'int16', '0+'),
    f('ErrorMessage', 'string', '0+', { nullable: '0+' }),
    s('Resources', '[]DescribeAclsResource', '0+', [
      f('ResourceType', 'int8', '0+'),
      f('ResourceName', 'string', '0+'),
      f('PatternType', 'int8', '1+', { default: 3 }),
      s('Acls', '[]AclDescription', '0+', [
        f('Principal', 'string', '0+'),
        f('Host', 'string', '0+'),
        f('Operation', 'int8', '0+'),
        f('PermissionType', 'int8', '0+'),
      ]),
    ]),
  ]),
};
