// ApiVersions (key 18), v0-v4.
//   v0-v2: each API key with its lowest and highest version; v1 adds the throttle
//       time, v2 is answered before throttling.
//   v3: flexible encoding; the client names its software and version (KIP-511);
//       supported and finalized features may follow as tagged fields.
//   v4: a supported feature's MinVersion may be 0 (KAFKA-17011); in v3 such a
//       feature is listed from 1 (Kafka does the same).
// The list is computed from the registry (support/registry.ts), so it holds only
// what is handled. An ApiVersions request of a version not served is answered in
// v0 with UNSUPPORTED_VERSION and the ranges (KIP-511, dispatch.ts).
import { ApiVersions } from '../protocol/messages/api-versions.js';
import { ErrorCode } from '../../../common/errors.js';
import type { Handler, HandlerOf } from './support/types.js';

export interface ApiRange { apiKey: number; minVersion: number; maxVersion: number }

/** Feature flags (KIP-584) as Kafka 4.x lists them: the supported range and the finalized level. */
export const FEATURES: Array<{ name: string; minVersion: number; maxVersion: number; level: number }> = [
  { name: 'group.version', minVersion: 0, maxVersion: 1, level: 1 }, // 1: the consumer group protocol (KIP-848)
];

/**
 * The range ApiVersions lists for a handler. Produce lists 0-2 although it
 * handles 3+ only: librdkafka enables gzip, snappy and lz4 only when the
 * broker's Produce range includes v0 (Kafka 4.0 does the same, KAFKA-18659).
 */
export function advertisedRange(h: Pick<Handler, 'api' | 'minVersion' | 'maxVersion' | 'advertisedMinVersion'>): ApiRange {
  return { apiKey: h.api.apiKey, minVersion: h.advertisedMinVersion ?? h.minVersion, maxVersion: h.maxVersion };
}

/** ApiVersions is computed from the registry, so it can only advertise what is handled. */
export function apiVersionsHandler(ranges: () => ApiRange[]): HandlerOf<typeof ApiVersions> {
  return {
    api: ApiVersions,
    minVersion: 0,
    maxVersion: 4,
    async handle(_req, ctx) {
      const v3 = ctx.apiVersion < 4;
      return {
        errorCode: ErrorCode.NONE, apiKeys: ranges(), throttleTimeMs: 0,
        supportedFeatures: FEATURES.map((f) => ({ name: f.name, minVersion: v3 ? Math.max(1, f.minVersion) : f.minVersion, maxVersion: f.maxVersion })),
        finalizedFeaturesEpoch: 1,
        finalizedFeatures: FEATURES.map((f) => ({ name: f.name, maxVersionLevel: f.level, minVersionLevel: f.level })),
      };
    },
  };
}
