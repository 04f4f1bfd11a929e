// Writing one transaction marker on this broker (the leader of the
// partition): WriteTxnMarkers' handler and the transaction coordinator's
// MarkerWriter (for partitions it leads itself) share this one copy.
import { ErrorCode, kafkaCodeOf, type KafkaErrorCode } from '../../../common/errors.js';
import { OFFSETS_TOPIC } from '../log/internal-topics.js';
import type { Logger } from '../../../common/logger/logger.js';
import type { Partition } from '../log/partition.js';
import type { TransactionServices } from './types.js';
import type { TxnMarker } from '../log/txn-marker.js';

/** What writing a marker here takes: the partitions this broker leads, the coordinator side's offset completion, a logger. */
export interface LocalMarkerTarget {
  /** The partition if led here; throws KafkaError NOT_LEADER_OR_FOLLOWER / UNKNOWN_TOPIC_OR_PARTITION otherwise (LogManager.partition). */
  log: { partition(topic: string, index: number): Promise<Pick<Partition, 'appendMarker'>> };
  txn: Pick<TransactionServices, 'completeTxnOffsets'>;
  logger: Logger;
}

/**
 * Writes `marker` to partition `index` of `topic` if this broker leads it:
 * the error code WriteTxnMarkers answers for that partition (NONE when
 * written; NOT_LEADER_OR_FOLLOWER / UNKNOWN_TOPIC_OR_PARTITION when it is not
 * led here or does not exist). For `__consumer_offsets` the transactional
 * offset commits of the slot are completed after the marker is stored. The
 * transaction coordinator's MarkerWriter uses this for partitions it leads
 * itself, and sends WriteTxnMarkers to the leader otherwise.
 */
export async function writeMarkerHere(b: LocalMarkerTarget, topic: string, index: number, marker: TxnMarker): Promise<KafkaErrorCode> {
  try {
    const p = await b.log.partition(topic, index);
    const out = await p.appendMarker(marker);
    if (out.errorCode !== ErrorCode.NONE) {
      b.logger.warn('transaction marker refused', { topic, partition: index, producerId: marker.producerId, code: out.errorCode, reason: out.errorMessage });
      return out.errorCode;
    }
    if (topic === OFFSETS_TOPIC) await b.txn.completeTxnOffsets(index, marker);
    return ErrorCode.NONE;
  } catch (e) {
    const code = kafkaCodeOf(e);
    if (code === null) throw e;
    return code;
  }
}
