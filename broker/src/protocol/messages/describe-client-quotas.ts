import { f, message, s, type ApiDef } from '../schema.js';

export const DescribeClientQuotas = {
  apiKey: 48,
  name: 'DescribeClientQuotas',
  request: message('DescribeClientQuotasRequest', '0-1', '1+', [
    s('Components', '[]ComponentData', '0+', [
      f('EntityType', 'string', '0+'),
      f('MatchType', 'int8', '0+'),
      f('Match', 'string', '0+', { nullable: '0+' }),
    ]),
    f('Strict', 'bool', '0+'),
  ]),
  response: message('DescribeClientQuotasResponse', '0-1', '1+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    f('ErrorCode', 'int16', '0+'),
    f('ErrorMessage', 'string', '0+', { nullable: '0+' }),
    s('Entries', '[]EntryData', '0+', [
      s('Entity', '[]EntityData', '0+', [
        f('EntityType', 'string', '0+'),
        f('EntityName', 'string', '0+', { nullable: '0+' }),
      ]),
      s('Values', '[]ValueData', '0+', [
        f('Key', 'string', '0+'),
        f('Value', 'float64', '0+'),
      ]),
    ], { nullable: '0+' }),
  ]),
} satisfies ApiDef;
