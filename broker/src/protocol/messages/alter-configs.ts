import { f, message, s, type ApiDef } from '../schema.js';

export const AlterConfigs = {
  apiKey: 33,
  name: 'AlterConfigs',
  request: message('AlterConfigsRequest', '0-2', '2+', [
    s('Resources', '[]AlterConfigsResource', '0+', [
      f('ResourceType', 'int8', '0+'),
      f('ResourceName', 'string', '0+'),
      s('Configs', '[]AlterableConfig', '0+', [
        f('Name', 'string', '0+'),
        f('Value', 'string', '0+', { nullable: '0+' }),
      ]),
    ]),
    f('ValidateOnly', 'bool', '0+'),
  ]),
  response: message('AlterConfigsResponse', '0-2', '2+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    s('Responses', '[]AlterConfigsResourceResponse', '0+', [
      f('ErrorCode', 'int16', '0+'),
      f('ErrorMessage', 'string', '0+', { nullable: '0+' }),
      f('ResourceType', 'int8', '0+'),
      f('ResourceName', 'string', '0+'),
    ]),
  ]),
} satisfies ApiDef;
