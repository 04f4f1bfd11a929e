// DescribeClientQuotas (v0-1): Runnel enforces no client quotas, so none is
// ever configured and the answer lists no entries. kafka-configs --describe
// --entity-type users asks for quotas before it lists SCRAM credentials.
import { DescribeClientQuotas } from '../protocol/messages/describe-client-quotas.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './types.js';

export const describeClientQuotasHandler: Handler = {
  api: DescribeClientQuotas,
  minVersion: 0,
  maxVersion: 1,
  async handle() {
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, entries: [] };
  },
};
