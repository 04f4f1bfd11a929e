// Field lists the three ACL APIs share (Kafka's CreateAcls, DescribeAcls and
// DeleteAcls spell them alike).
import { f } from '../schema.js';

/** A resource pattern filter plus an entry filter: DescribeAcls' request, each DeleteAcls filter. */
export const aclFilterFields = () => [
  f('ResourceTypeFilter', 'int8', '0+'),
  f('ResourceNameFilter', 'string', '0+', { nullable: '0+' }),
  f('PatternTypeFilter', 'int8', '1+', { default: 3 }),
  f('PrincipalFilter', 'string', '0+', { nullable: '0+' }),
  f('HostFilter', 'string', '0+', { nullable: '0+' }),
  f('Operation', 'int8', '0+'),
  f('PermissionType', 'int8', '0+'),
];

/** An access control entry: principal, host, operation, permission. */
export const aclEntryFields = () => [
  f('Principal', 'string', '0+'),
  f('Host', 'string', '0+'),
  f('Operation', 'int8', '0+'),
  f('PermissionType', 'int8', '0+'),
];
