import { ApiVersions } from '../protocol/messages/api-versions.js';
import { ErrorCode } from '../../../common/errors.js';
import type { HandlerOf } from './types.js';

/** ApiVersions is computed from the registry, so it can only advertise what is handled. */
export function apiVersionsHandler(ranges: () => Array<{ apiKey: number; minVersion: number; maxVersion: number }>): HandlerOf<typeof ApiVersions> {
  return {
    api: ApiVersions,
    minVersion: 0,
    maxVersion: 4,
    async handle() {
      return { errorCode: ErrorCode.NONE, apiKeys: ranges(), throttleTimeMs: 0 };
    },
  };
}
