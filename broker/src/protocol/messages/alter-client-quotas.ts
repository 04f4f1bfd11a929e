import { f, message, s, type ApiDef } from '../schema.js';

export const AlterClientQuotas = {
  apiKey: 49,
  name: 'AlterClientQuotas',
  request: message('AlterClientQuotasRequest', '0-1', '1+', [
    s('Entries', '[]EntryData', '0+', [
      s('Entity', '[]EntityData', '0+', [
        f('EntityType', 'string', '0+'),
        f('EntityName', 'string', '0+', { nullable: '0+' }),
      ]),
      s('Ops', '[]OpData', '0+', [
        f('Key', 'string', '0+'),
        f('Value', 'float64', '0+'),
        f('Remove', 'bool', '0+'),
      ]),
    ]),
    f('ValidateOnly', 'bool', '0+'),
  ]),
  response: message('AlterClientQuotasResponse', '0-1', '1+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    s('Entries', '[]EntryData', '0+', [
      f('ErrorCode', 'int16', '0+'),
      f('ErrorMessage', 'string', '0+', { nullable: '0+' }),
      s('Entity', '[]EntityData', '0+', [
        f('EntityType', 'string', '0+'),
        f('EntityName', 'string', '0+', { nullable: '0+' }),
      ]),
    ]),
  ]),
} satisfies ApiDef;
