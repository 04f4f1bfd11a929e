// Response frames spelled out field by field from Kafka's message definitions
// (ProduceResponse.json, FetchResponse.json, MetadataResponse.json,
// OffsetForLeaderEpochResponse.json, AlterConfigsResponse.json,
// WriteTxnMarkersResponse.json), for the hand-written requests of
// hand-requests.ts as golden.test.ts replays them: the broker is node 1 at
// 127.0.0.1:9092, golden-hand is a new topic with one partition in leader
// epoch 0, Produce v3 stores kcat's 3-record batch at offset 0 and Produce v9
// the same batch at offset 3. Response header v0 = correlationId int32;
// v1 adds a tagged-field section (0x00). Only the int32 size prefix is computed.
import { frame, KCAT_BATCH } from './hand-requests.js';

const TOPIC = '676f6c64656e2d68616e64'; // "golden-hand"
const KCAT_TOPIC = '676f6c64656e2d6b636174'; // "golden-kcat"
/** The batch as stored at offset 3: only the base offset (bytes 0-7, outside the CRC) differs. */
const BATCH_AT_3 = KCAT_BATCH.replace(/^\s*0000000000000000/, '0000000000000003');

export const ANNOTATED_RESPONSES: Record<string, Buffer> = {
  'hand Produce v3': frame(`
    00000067                           # correlationId 103
    00000001 000b ${TOPIC}             # Responses: 1 entry, Name "golden-hand"
    00000001 00000000 0000             #   PartitionResponses: 1 entry, Index 0, ErrorCode 0
    0000000000000000                   #     BaseOffset 0 (the topic was empty)
    ffffffffffffffff                   #     LogAppendTimeMs -1 (CreateTime topic)
    00000000                           # ThrottleTimeMs 0
  `),
  'hand Produce v9': frame(`
    00000068 00                        # correlationId 104, header tagged fields
    02 0c ${TOPIC}                     # Responses: compact array of 1, Name "golden-hand"
    02 00000000 0000                   #   PartitionResponses: 1 entry, Index 0, ErrorCode 0
    0000000000000003                   #     BaseOffset 3 (after Produce v3's 3 records)
    ffffffffffffffff 0000000000000000  #     LogAppendTimeMs -1, LogStartOffset 0
    01 00 00                           #     RecordErrors [], ErrorMessage null, tagged fields
    00                                 #   tagged fields of the topic
    00000000 00                        # ThrottleTimeMs 0, tagged fields
  `),
  'hand Fetch v4': frame(`
    00000069                           # correlationId 105
    00000000                           # ThrottleTimeMs 0
    00000001 000b ${TOPIC}             # Responses: 1 entry, Topic "golden-hand"
    00000001 00000000 0000             #   Partitions: 1 entry, PartitionIndex 0, ErrorCode 0
    0000000000000006 0000000000000006  #     HighWatermark 6, LastStableOffset 6
    ffffffff                           #     AbortedTransactions null (read_uncommitted)
    000000c6                           #     Records: 198 bytes, both batches whole
    ${KCAT_BATCH}
    ${BATCH_AT_3}
  `),
  'hand Metadata v1': frame(`
    00000066                           # correlationId 102
    00000001                           # Brokers: 1 entry
    00000001 0009 3132372e302e302e31   #   NodeId 1, Host "127.0.0.1"
    00002384 ffff                      #   Port 9092, Rack null
    00000001                           # ControllerId 1
    00000002                           # Topics: 2 entries, as requested
    0000 000b ${TOPIC} 00              #   ErrorCode 0, Name "golden-hand", IsInternal false
    00000001                           #   Partitions: 1 entry
    0000 00000000 00000001             #     ErrorCode 0, PartitionIndex 0, LeaderId 1
    00000001 00000001                  #     ReplicaNodes [1]
    00000001 00000001                  #     IsrNodes [1]
    0000 000b ${KCAT_TOPIC} 00         #   ErrorCode 0, Name "golden-kcat", IsInternal false
    00000001 0000 00000000 00000001    #   Partitions: 1 entry: ErrorCode 0, PartitionIndex 0, LeaderId 1
    00000001 00000001 00000001 00000001 #    ReplicaNodes [1], IsrNodes [1]
  `),
  'hand OffsetForLeaderEpoch v3': frame(`
    0000006b                           # correlationId 107
    00000000                           # ThrottleTimeMs 0
    00000001 000b ${TOPIC}             # Topics: 1 entry, Topic "golden-hand"
    00000001 0000 00000000             #   Partitions: 1 entry, ErrorCode 0, Partition 0
    00000000 0000000000000006          #     LeaderEpoch 0 (the current one), EndOffset 6 = the log end
  `),
  'hand AlterConfigs v1': frame(`
    0000006c                           # correlationId 108
    00000000                           # ThrottleTimeMs 0
    00000001 0000 ffff                 # Responses: 1 entry, ErrorCode 0, ErrorMessage null
    02 000b ${TOPIC}                   #   ResourceType 2 (TOPIC), ResourceName "golden-hand"
  `),
  'hand WriteTxnMarkers v1': frame(`
    0000006d 00                        # correlationId 109, header tagged fields
    02 000000000000002a                # Markers: compact array of 1, ProducerId 42
    02 0c ${TOPIC}                     #   Topics: 1 entry, Name "golden-hand"
    02 00000000 0000 00                #     Partitions: 1 entry, PartitionIndex 0, ErrorCode 0, tagged fields
    00 00 00                           #   tagged fields of topic, marker, response
  `),
};
