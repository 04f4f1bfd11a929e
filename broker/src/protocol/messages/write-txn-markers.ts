import { f, message, s, type ApiDef } from '../schema.js';

/** Sent by a transaction coordinator (or `kafka-transactions abort`) to the leader of each partition of a transaction. */
export const WriteTxnMarkers = {
  apiKey: 27,
  name: 'WriteTxnMarkers',
  request: message('WriteTxnMarkersRequest', '0-1', '1+', [
    s('Markers', '[]WritableTxnMarker', '0+', [
      f('ProducerId', 'int64', '0+'),
      f('ProducerEpoch', 'int16', '0+'),
      f('TransactionResult', 'bool', '0+'),
      s('Topics', '[]WritableTxnMarkerTopic', '0+', [
        f('Name', 'string', '0+'),
        f('PartitionIndexes', '[]int32', '0+'),
      ]),
      f('CoordinatorEpoch', 'int32', '0+'),
    ]),
  ]),
  response: message('WriteTxnMarkersResponse', '0-1', '1+', [
    s('Markers', '[]WritableTxnMarkerResult', '0+', [
      f('ProducerId', 'int64', '0+'),
      s('Topics', '[]WritableTxnMarkerTopicResult', '0+', [
        f('Name', 'string', '0+'),
        s('Partitions', '[]WritableTxnMarkerPartitionResult', '0+', [
          f('PartitionIndex', 'int32', '0+'),
          f('ErrorCode', 'int16', '0+'),
        ]),
      ]),
    ]),
  ]),
} satisfies ApiDef;
