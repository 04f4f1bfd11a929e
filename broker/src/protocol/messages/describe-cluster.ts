import { f, message, s, type ApiDef } from '../schema.js';

export const DescribeCluster = {
  apiKey: 60,
  name: 'DescribeCluster',
  request: message('DescribeClusterRequest', '0-1', '0+', [
    f('IncludeClusterAuthorizedOperations', 'bool', '0+'),
    f('EndpointType', 'int8', '1+', { default: 1 }),
  ]),
  response: message('DescribeClusterResponse', '0-1', '0+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    f('ErrorCode', 'int16', '0+'),
    f('ErrorMessage', 'string', '0+', { nullable: '0+', default: null }),
    f('EndpointType', 'int8', '1+', { default: 1 }),
    f('ClusterId', 'string', '0+'),
    f('ControllerId', 'int32', '0+', { default: -1 }),
    s('Brokers', '[]DescribeClusterBroker', '0+', [
      f('BrokerId', 'int32', '0+'),
      f('Host', 'string', '0+'),
      f('Port', 'int32', '0+'),
      f('Rack', 'string', '0+', { nullable: '0+', default: null }),
    ]),
    f('ClusterAuthorizedOperations', 'int32', '0+', { default: -2147483648 }),
  ]),
} satisfies ApiDef;
