// AlterClientQuotas (key 49), v0-v1.
//   v0: sets or removes quota values of user, client-id or ip entities, or only
//       validates them (validateOnly), one result per entity (KIP-546).
//   v1: flexible encoding.
// Needs ALTER_CONFIGS on the cluster. The quota service keeps the values in Redis,
// and every broker's cache follows them.
import { AlterClientQuotas } from '../protocol/messages/alter-client-quotas.js';
import { ErrorCode } from '../../../common/errors.js';
import type { QuotaAlteration } from '../quotas/quota-service.js';
import type { HandlerOf } from './support/types.js';
import { Op, authorizeCluster } from './support/authorize.js';

/** AlterClientQuotas (kafka-configs --alter --add-config producer_byte_rate=... --entity-type users|clients). */
export const alterClientQuotasHandler: HandlerOf<typeof AlterClientQuotas> = {
  api: AlterClientQuotas,
  minVersion: 0,
  maxVersion: 1,
  async handle(req, ctx, b) {
    const entries = req.entries;
    // Kafka: ALTER_CONFIGS on the cluster.
    const denied = !authorizeCluster(ctx, b, Op.ALTER_CONFIGS);
    const results = denied
      ? entries.map(() => ({ errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, message: null }))
      : b.quotas
      ? await b.quotas.alter(entries, req.validateOnly)
      : entries.map(() => ({ errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, message: 'quotas are not available' }));
    return {
      throttleTimeMs: 0,
      entries: entries.map((e, i) => ({
        errorCode: results[i]?.errorCode ?? ErrorCode.NONE,
        errorMessage: results[i]?.message ?? null,
        entity: e.entity,
      })),
    };
  },
};
