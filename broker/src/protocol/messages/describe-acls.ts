import { f, message, s, type ApiDef } from '../schema.js';
import { aclEntryFields, aclFilterFields } from './acl-fields.js';

export const DescribeAcls = {
  apiKey: 29,
  name: 'DescribeAcls',
  request: message('DescribeAclsRequest', '0-3', '2+', aclFilterFields()),
  response: message('DescribeAclsResponse', '0-3', '2+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    f('ErrorCode', 'int16', '0+'),
    f('ErrorMessage', 'string', '0+', { nullable: '0+' }),
    s('Resources', '[]DescribeAclsResource', '0+', [
      f('ResourceType', 'int8', '0+'),
      f('ResourceName', 'string', '0+'),
      f('PatternType', 'int8', '1+', { default: 3 }),
      s('Acls', '[]AclDescription', '0+', aclEntryFields()),
    ]),
  ]),
} satisfies ApiDef;
