// DescribeClientQuotas (key 48), v0-v1.
//   v0: the quota values of the entities that match filter components, strictly
//       or not (KIP-546).
//   v1: flexible encoding.
// Needs DESCRIBE_CONFIGS on the cluster; the quota service reloads the stored values first.
import { DescribeClientQuotas } from '../protocol/messages/describe-client-quotas.js';
import { ErrorCode } from '../../../common/errors.js';
import type { FilterComponent } from '../quotas/entities.js';
import type { HandlerOf } from './support/types.js';
import { Op, authorizeCluster } from './support/authorize.js';

/** DescribeClientQuotas (kafka-configs --describe --entity-type users|clients|ips). */
export const describeClientQuotasHandler: HandlerOf<typeof DescribeClientQuotas> = {
  api: DescribeClientQuotas,
  minVersion: 0,
  maxVersion: 1,
  async handle(req, ctx, b) {
    // Kafka: DESCRIBE_CONFIGS on the cluster.
    if (!authorizeCluster(ctx, b, Op.DESCRIBE_CONFIGS)) return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: null, entries: null };
    if (!b.quotas) return { throttleTimeMs: 0, errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: 'quotas are not available', entries: null };
    const found = await b.quotas.describe(req.components, req.strict);
    if ('errorCode' in found) return { throttleTimeMs: 0, errorCode: found.errorCode, errorMessage: found.message, entries: null };
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      entries: found.map(({ entity, values }) => ({
        entity: Object.entries(entity).map(([entityType, entityName]) => ({ entityType, entityName })),
        values: [...values].map(([key, value]) => ({ key, value })),
      })),
    };
  },
};
