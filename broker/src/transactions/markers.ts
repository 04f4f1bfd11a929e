// Completing a decided transaction: one marker per partition, retried until
// every partition has it, then the Complete* state. Kafka's
// TransactionMarkerChannelManager does the same with its queues per broker.
import { ErrorCode, type KafkaErrorCode } from '../../../common/errors.js';
import type { Logger } from '../../../common/logger/logger.js';
import type { Clock } from '../../../common/clock.js';
import type { MarkerWriter } from './types.js';
import type { TxnMarker } from '../log/txn-marker.js';
import { parseTp } from './txn-metadata.js';

/** Partition errors after which the marker is not retried: the partition is gone, so nothing of the transaction remains to resolve. */
const FINAL: ReadonlySet<number> = new Set([ErrorCode.NONE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.INVALID_TOPIC_EXCEPTION]);

export const MARKER_RETRY_MS = { first: 100, max: 2000 };

/**
 * Writes `marker` to every partition. `firstRound` resolves after one attempt
 * at every partition with whether all succeeded; `done` resolves once every
 * partition has its marker (retrying the others with backoff), or false when
 * `stillValid` turned false (this coordinator lost the id: its successor
 * completes the transaction from the stored Prepare* state).
 */
export function writeAllMarkers(
  writer: MarkerWriter, partitions: string[], marker: TxnMarker, clock: Clock, stillValid: () => boolean, logger?: Logger,
): { firstRound: Promise<boolean>; done: Promise<boolean> } {
  let resolveFirst!: (ok: boolean) => void;
  const firstRound = new Promise<boolean>((r) => { resolveFirst = r; });
  const attempt = async (tps: string[]): Promise<string[]> => {
    const codes = await Promise.all(tps.map((k) => writer.writeMarker(parseTp(k), marker).catch((): KafkaErrorCode => ErrorCode.NOT_LEADER_OR_FOLLOWER)));
    const left = tps.filter((_, i) => !FINAL.has(codes[i]!));
    if (left.length) logger?.debug('transaction markers to retry', { producerId: marker.producerId, partitions: left.join(','), errors: codes.filter((c) => !FINAL.has(c)).join(',') });
    return left;
  };
  const done = (async (): Promise<boolean> => {
    let left = await attempt(partitions);
    resolveFirst(left.length === 0);
    let delay = MARKER_RETRY_MS.first;
    while (left.length > 0) {
      await new Promise<void>((r) => clock.schedule(delay, r));
      if (!stillValid()) return false;
      left = await attempt(left);
      delay = Math.min(delay * 2, MARKER_RETRY_MS.max);
    }
    return true;
  })();
  return { firstRound, done };
}
