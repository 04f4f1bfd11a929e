import { f, message, s, type ApiDef } from '../schema.js';
import { aclEntryFields } from './acl-fields.js';

export const CreateAcls = {
  apiKey: 30,
  name: 'CreateAcls',
  request: message('CreateAclsRequest', '0-3', '2+', [
    s('Creations', '[]AclCreation', '0+', [
      f('ResourceType', 'int8', '0+'),
      f('ResourceName', 'string', '0+'),
      f('ResourcePatternType', 'int8', '1+', { default: 3 }),
      ...aclEntryFields(),
    ]),
  ]),
  response: message('CreateAclsResponse', '0-3', '2+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    s('Results', '[]AclCreationResult', '0+', [
      f('ErrorCode', 'int16', '0+'),
      f('ErrorMessage', 'string', '0+', { nullable: '0+' }),
    ]),
  ]),
} satisfies ApiDef;
