import { AlterClientQuotas } from '../protocol/messages/alter-client-quotas.js';
import { ErrorCode } from '../errors.js';
import type { QuotaAlteration } from '../quotas/quota-service.js';
import type { Handler } from './types.js';

/** AlterClientQuotas (kafka-configs --alter --add-config producer_byte_rate=... --entity-type users|clients). */
export const alterClientQuotasHandler: Handler = {
  api: AlterClientQuotas,
  minVersion: 0,
  maxVersion: 1,
  async handle(req, _ctx, b) {
    const entries = req.entries as QuotaAlteration[];
    const results = b.quotas
      ? await b.quotas.alter(entries, req.validateOnly as boolean)
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
