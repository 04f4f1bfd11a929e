// DescribeCluster (key 60), v0-v1.
//   v0: cluster id, controller and brokers, and the principal's operations on the
//       cluster when asked (KIP-700); flexible encoding.
//   v1: the endpoint type asked for, brokers or controllers; UNSUPPORTED_ENDPOINT_TYPE
//       and MISMATCHED_ENDPOINT_TYPE become top-level errors (KIP-919).
// Broker endpoints only: asking for controllers is UNSUPPORTED_ENDPOINT_TYPE. The
// brokers are listed as the client's listener reaches them; no permission is checked.
import { DescribeCluster } from '../protocol/messages/describe-cluster.js';
import { ErrorCode } from '../../../common/errors.js';
import { brokerList, controllerId } from './support/cluster-view.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorizedOperations } from './support/authorize.js';
import { CLUSTER_NAME } from '../security/acl/model.js';

/** What the cluster supports (Kafka's AclOperation codes). */
const CLUSTER_OPERATIONS = [Op.CREATE, Op.CLUSTER_ACTION, Op.DESCRIBE_CONFIGS, Op.ALTER_CONFIGS, Op.IDEMPOTENT_WRITE, Op.ALTER, Op.DESCRIBE];

const ENDPOINT_BROKERS = 1;

export const describeClusterHandler: HandlerOf<typeof DescribeCluster> = {
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
      // Kafka checks nothing here; it reports the principal's operations on the cluster when asked.
      ...(req.includeClusterAuthorizedOperations ? { clusterAuthorizedOperations: authorizedOperations(ctx, b, Resource.CLUSTER, CLUSTER_NAME, CLUSTER_OPERATIONS) } : {}),
    };
  },
};
