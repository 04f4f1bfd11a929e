import { DescribeCluster } from '../protocol/messages/describe-cluster.js';
import { ErrorCode } from '../errors.js';
import { brokerList, controllerId } from './cluster-view.js';
import type { Handler } from './types.js';

const ENDPOINT_BROKERS = 1;

export const describeClusterHandler: Handler = {
  api: DescribeCluster,
  minVersion: 0,
  maxVersion: 1,
  async handle(req, ctx, b) {
    if (req.endpointType !== ENDPOINT_BROKERS) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.UNSUPPORTED_ENDPOINT_TYPE, errorMessage: 'Only broker endpoints are served', endpointType: req.endpointType, clusterId: b.clusterId, brokers: [] };
    }
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      endpointType: ENDPOINT_BROKERS,
      clusterId: b.clusterId,
      controllerId: controllerId(b),
      brokers: brokerList(b, ctx.session).map((x) => ({ brokerId: x.nodeId, host: x.host, port: x.port, rack: x.rack })),
    };
  },
};
