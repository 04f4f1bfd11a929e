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
// v3+ also carry the feature flags (FEATURES below), which is how 4.x clients
// choose protocol paths such as transactions v2.
import { ApiVersions } from '../protocol/messages/api-versions.js';
import { ErrorCode } from '../../../common/errors.js';
import type { Handler, HandlerOf } from './support/types.js';

export interface ApiRange { apiKey: number; minVersion: number; maxVersion: number }

/**
 * The range ApiVersions lists for a handler. Produce lists 0-2 although it
 * handles 3+ only: librdkafka enables gzip, snappy and lz4 only when the
 * broker's Produce range includes v0 (Kafka 4.0 does the same, KAFKA-18659).
 */
export function advertisedRange(h: Pick<Handler, 'api' | 'minVersion' | 'maxVersion' | 'advertisedMinVersion'>): ApiRange {
  return { apiKey: h.api.apiKey, minVersion: h.advertisedMinVersion ?? h.minVersion, maxVersion: h.maxVersion };
}

/** A feature flag as Kafka's ApiVersions lists it: the levels this broker supports and the one the cluster runs at. */
export interface Feature { name: string; minVersion: number; maxVersion: number; finalizedLevel: number }

/**
 * The features advertised. `transaction.version` 2 is transactions v2
 * (KIP-890 part 2): a Kafka 4.x producer reads the finalized level
 * (TransactionManager.maybeUpdateTransactionV2Enabled) and, at 2 or more,
 * sends EndTxn v5, Produce v12 and TxnOffsetCommit v5 instead of
 * AddPartitionsToTxn and AddOffsetsToTxn. Levels 0..2 as Kafka 4.x supports.
 */
export const FEATURES: readonly Feature[] = [
  // 1: the consumer group protocol (KIP-848): Java 4.x consumers with group.protocol=consumer need it finalized.
  { name: 'group.version', minVersion: 0, maxVersion: 1, finalizedLevel: 1 },
  { name: 'transaction.version', minVersion: 0, maxVersion: 2, finalizedLevel: 2 },
  // 1: share groups (KIP-932) as Kafka 4.2+ runs them: the Java KafkaShareConsumer needs it finalized.
  { name: 'share.version', minVersion: 0, maxVersion: 1, finalizedLevel: 1 },
];

/**
 * The epoch of the finalized features (Kafka: the metadata offset they were
 * read at). Runnel's never change, so one constant epoch; a client keeps the
 * features of the highest epoch it saw, and starts below 0.
 */
export const FINALIZED_FEATURES_EPOCH = 1;

/**
 * The feature fields of an ApiVersions answer of version `v` (Kafka's
 * ApiVersionsResponse): none before v3; before v4 a supported minimum of 0
 * is sent as 1, since older clients cannot read 0 (KAFKA-17011), and a
 * feature supported only at level 0 is then left out (a range of 1..0 would
 * be invalid); a finalized level 0 is never listed. Finalized keys carry the
 * level as both their minimum and maximum.
 */
export function featureFields(v: number, features: readonly Feature[] = FEATURES) {
  if (v < 3) return {};
  return {
    supportedFeatures: features.filter((f) => v >= 4 || f.maxVersion >= 1)
      .map((f) => ({ name: f.name, minVersion: v < 4 ? Math.max(1, f.minVersion) : f.minVersion, maxVersion: f.maxVersion })),
    finalizedFeaturesEpoch: FINALIZED_FEATURES_EPOCH,
    finalizedFeatures: features.filter((f) => f.finalizedLevel !== 0).map((f) => ({ name: f.name, maxVersionLevel: f.finalizedLevel, minVersionLevel: f.finalizedLevel })),
  };
}

/** ApiVersions is computed from the registry, so it can only advertise what is handled. */
export function apiVersionsHandler(ranges: () => ApiRange[]): HandlerOf<typeof ApiVersions> {
  return {
    api: ApiVersions,
    minVersion: 0,
    maxVersion: 4,
    async handle(_req, ctx) {
      return { errorCode: ErrorCode.NONE, apiKeys: ranges(), throttleTimeMs: 0, ...featureFields(ctx.apiVersion) };
    },
  };
}
