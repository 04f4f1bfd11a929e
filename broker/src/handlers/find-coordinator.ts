// FindCoordinator (key 10), v0-v4.
//   v0: the coordinator of a group.
//   v1: a key type (group or transaction); throttle time and error message.
//   v2: answered before throttling.
//   v3: flexible encoding.
//   v4: many keys in one request, one answer each (KIP-699).
// Transactional ids hash onto the same coordinator slots as groups. Needs DESCRIBE
// on the group or the id; another key type is INVALID_REQUEST.
import { FindCoordinator } from '../protocol/messages/find-coordinator.js';
import { ErrorCode, codeName } from '../../../common/errors.js';
import { coordinatorFor, type ListenerOf } from './support/cluster-view.js';
import type { BrokerServices, HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';

const GROUP = 0;
const TRANSACTION = 1;

interface Lookup { nodeId: number; host: string; port: number; errorCode: number; errorMessage: string | null }

const failed = (code: number, message?: string): Lookup => ({ nodeId: -1, host: '', port: -1, errorCode: code, errorMessage: message ?? codeName(code) });

function lookup(b: BrokerServices, key: string, keyType: number, on: ListenerOf): Lookup {
  // Transactional ids hash onto the same coordinator slots as groups (Kafka: partitions of __transaction_state).
  if (keyType !== GROUP && keyType !== TRANSACTION) return failed(ErrorCode.INVALID_REQUEST, `unknown coordinator key type ${keyType}`);
  const node = coordinatorFor(b, key, on);
  if (!node) return failed(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  return { nodeId: node.nodeId, host: node.host, port: node.port, errorCode: ErrorCode.NONE, errorMessage: null };
}

export const findCoordinatorHandler: HandlerOf<typeof FindCoordinator> = {
  api: FindCoordinator,
  minVersion: 0,
  maxVersion: 4,
  async handle(req, ctx, b) {
    const keyType: number = ctx.apiVersion >= 1 ? req.keyType : GROUP;
    // Kafka: DESCRIBE on the group or on the transactional id.
    const find = (key: string): Lookup => {
      if (keyType === GROUP && !authorize(ctx, b, Op.DESCRIBE, Resource.GROUP, key)) return failed(ErrorCode.GROUP_AUTHORIZATION_FAILED);
      if (keyType === TRANSACTION && !authorize(ctx, b, Op.DESCRIBE, Resource.TRANSACTIONAL_ID, key)) return failed(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
      return lookup(b, key, keyType, ctx.session);
    };
    if (ctx.apiVersion >= 4) {
      return { throttleTimeMs: 0, coordinators: req.coordinatorKeys.map((key) => ({ key, ...find(key) })) };
    }
    return { throttleTimeMs: 0, ...find(req.key) };
  },
};
