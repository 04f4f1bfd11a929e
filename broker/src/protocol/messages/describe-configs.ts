import { f, message, s, type ApiDef } from '../schema.js';

export const DescribeConfigs = {
  apiKey: 32,
  name: 'DescribeConfigs',
  request: message('DescribeConfigsRequest', '1-4', '4+', [
    s('Resources', '[]DescribeConfigsResource', '0+', [
      f('ResourceType', 'int8', '0+'),
      f('ResourceName', 'string', '0+'),
      f('ConfigurationKeys', '[]string', '0+', { nullable: '0+' }),
    ]),
    f('IncludeSynonyms', 'bool', '1+', { default: false }),
    f('IncludeDocumentation', 'bool', '3+', { default: false }),
  ]),
  response: message('DescribeConfigsResponse', '1-4', '4+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    s('Results', '[]DescribeConfigsResult', '0+', [
      f('ErrorCode', 'int16', '0+'),
      f('ErrorMessage', 'string', '0+', { nullable: '0+' }),
      f('ResourceType', 'int8', '0+'),
      f('ResourceName', 'string', '0+'),
      s('Configs', '[]DescribeConfigsResourceResult', '0+', [
        f('Name', 'string', '0+'),
        f('Value', 'string', '0+', { nullable: '0+' }),
        f('ReadOnly', 'bool', '0+'),
        f('ConfigSource', 'int8', '1+', { default: -1 }),
        f('IsSensitive', 'bool', '0+'),
        s('Synonyms', '[]DescribeConfigsSynonym', '1+', [
          f('Name', 'string', '1+'),
          f('Value', 'string', '1+', { nullable: '0+' }),
          f('Source', 'int8', '1+'),
        ]),
        f('ConfigType', 'int8', '3+', { default: 0 }),
        f('Documentation', 'string', '3+', { nullable: '0+' }),
      ]),
    ]),
  ]),
} satisfies ApiDef;
