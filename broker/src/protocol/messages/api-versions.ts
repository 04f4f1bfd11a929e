import { f, message, s, type ApiDef } from '../schema.js';

export const ApiVersions = {
  apiKey: 18,
  name: 'ApiVersions',
  request: message('ApiVersionsRequest', '0-4', '3+', [
    f('ClientSoftwareName', 'string', '3+'),
    f('ClientSoftwareVersion', 'string', '3+'),
  ]),
  response: message('ApiVersionsResponse', '0-4', '3+', [
    f('ErrorCode', 'int16', '0+'),
    s('ApiKeys', '[]ApiVersion', '0+', [
      f('ApiKey', 'int16', '0+'),
      f('MinVersion', 'int16', '0+'),
      f('MaxVersion', 'int16', '0+'),
    ]),
    f('ThrottleTimeMs', 'int32', '1+'),
    s('SupportedFeatures', '[]SupportedFeatureKey', '3+', [
      f('Name', 'string', '3+'),
      f('MinVersion', 'int16', '3+'),
      f('MaxVersion', 'int16', '3+'),
    ], { tagged: '3+', tag: 0 }),
    f('FinalizedFeaturesEpoch', 'int64', '3+', { tagged: '3+', tag: 1, default: -1 }),
    s('FinalizedFeatures', '[]FinalizedFeatureKey', '3+', [
      f('Name', 'string', '3+'),
      f('MaxVersionLevel', 'int16', '3+'),
      f('MinVersionLevel', 'int16', '3+'),
    ], { tagged: '3+', tag: 2 }),
    f('ZkMigrationReady', 'bool', '3+', { tagged: '3+', tag: 3, default: false }),
  ]),
} satisfies ApiDef;
