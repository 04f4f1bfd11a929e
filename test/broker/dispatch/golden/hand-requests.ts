// Request frames written by hand, for versions and APIs the capture's clients
// did not send (kcat/librdkafka 2.0, KafkaJS 2.2 and Java kafka-clients 4.4
// sent the ones in requests.json; WriteTxnMarkers only brokers send, the
// legacy AlterConfigs no current tool). Field layouts from Kafka's message definitions
// (ApiVersionsRequest.json, MetadataRequest.json, ProduceRequest.json,
// FetchRequest.json); header v1 = apiKey int16, apiVersion int16,
// correlationId int32, clientId int16-length string; header v2 adds an empty
// tagged-field section (one 0x00 byte). Only the int32 size prefix is computed.
// They write to and read from their own topic, HAND_TOPIC, which the golden
// test creates with a fixed id. The record batch is one kcat sent in a Produce
// v7 during a capture (copied here once): 3 records k1:one, k2:two, k3:three,
// no producer id, 99 bytes.

/** Strips `# comments` and whitespace from annotated hex and prefixes the frame size. */
export function frame(annotated: string): Buffer {
  const body = Buffer.from(annotated.replace(/#[^\n]*/g, '').replace(/\s+/g, ''), 'hex');
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length, 0);
  return Buffer.concat([size, body]);
}

const CLIENT = '000b 676f6c64656e2d68616e64'; // "golden-hand"
/** The topic the hand-written requests use; its id is in Fetch v13 below. */
export const HAND_TOPIC = { name: 'golden-hand', id: '0000feed-0000-4000-8000-000000000001' };
const TOPIC = '676f6c64656e2d68616e64'; // "golden-hand", 11 bytes
const KCAT_TOPIC = '676f6c64656e2d6b636174'; // "golden-kcat", 11 bytes (the captured kcat data)

/** kcat's batch (see above). */
export const KCAT_BATCH = `
  0000000000000000 00000057 00000000 02 fbf44ae9   # baseOffset 0, batchLength 87, partitionLeaderEpoch 0, magic 2, crc
  0000 00000002 000001a230a34e2a 000001a230a34e2a  # attributes 0, lastOffsetDelta 2, base/max timestamp
  ffffffffffffffff ffff ffffffff 00000003          # producerId -1, producerEpoch -1, baseSequence -1, 3 records
  16 00 00 00 04 6b31 06 6f6e65 00                 # record 0: length 11 (zigzag 0x16), attrs, ts 0, offset 0, key "k1", value "one", 0 headers
  16 00 00 02 04 6b32 06 74776f 00                 # record 1: offsetDelta 1, key "k2", value "two"
  1a 00 00 04 04 6b33 0a 7468726565 00             # record 2: length 13, offsetDelta 2, key "k3", value "three"
`;

export const HAND_REQUESTS: Array<{ name: string; hex: Buffer }> = [
  {
    name: 'hand ApiVersions v0',
    hex: frame(`0012 0000 00000065 ${CLIENT}   # ApiVersions v0, correlationId 101; the v0 body is empty`),
  },
  {
    name: 'hand Metadata v1',
    hex: frame(`
      0003 0001 00000066 ${CLIENT}       # Metadata v1, correlationId 102
      00000002                           # Topics: 2 entries
      000b ${TOPIC}                      #   Name "golden-hand"
      000b ${KCAT_TOPIC}                 #   Name "golden-kcat"
    `),
  },
  {
    name: 'hand Produce v3',
    hex: frame(`
      0000 0003 00000067 ${CLIENT}       # Produce v3, correlationId 103
      ffff                               # TransactionalId null
      0001                               # Acks 1
      00007530                           # TimeoutMs 30000
      00000001 000b ${TOPIC}             # TopicData: 1 entry, Name "golden-hand"
      00000001 00000000                  #   PartitionData: 1 entry, Index 0
      00000063 ${KCAT_BATCH}             #     Records: 99 bytes
    `),
  },
  {
    name: 'hand Produce v9',
    hex: frame(`
      0000 0009 00000068 ${CLIENT} 00    # Produce v9 (flexible: header v2), correlationId 104
      00                                 # TransactionalId null (compact nullable string)
      ffff                               # Acks -1
      00007530                           # TimeoutMs 30000
      02 0c ${TOPIC}                     # TopicData: compact array of 1, Name compact string of 11
      02 00000000                        #   PartitionData: 1 entry, Index 0
      64 ${KCAT_BATCH}                   #     Records: compact bytes of 99 (uvarint 100)
      00 00 00                           #   tagged fields of partition, topic, request
    `),
  },
  {
    name: 'hand Fetch v4',
    hex: frame(`
      0001 0004 00000069 ${CLIENT}       # Fetch v4, correlationId 105
      ffffffff 00000000 00000001         # ReplicaId -1, MaxWaitMs 0, MinBytes 1
      00100000 00                        # MaxBytes 1 MiB, IsolationLevel 0 (read_uncommitted)
      00000001 000b ${TOPIC}             # Topics: 1 entry, Topic "golden-hand"
      00000001 00000000                  #   Partitions: 1 entry, Partition 0
      0000000000000000 00100000          #     FetchOffset 0, PartitionMaxBytes 1 MiB
    `),
  },
  {
    name: 'hand Fetch v13',
    hex: frame(`
      0001 000d 0000006a ${CLIENT} 00    # Fetch v13 (flexible: header v2), correlationId 106
      ffffffff 00000000 00000001         # ReplicaId -1, MaxWaitMs 0, MinBytes 1
      00100000 01                        # MaxBytes 1 MiB, IsolationLevel 1 (read_committed)
      00000000 ffffffff                  # SessionId 0, SessionEpoch -1 (a full fetch, no session)
      02                                 # Topics: compact array of 1
      0000feed000040008000000000000001   #   TopicId of golden-hand (HAND_TOPIC)
      02 00000000 ffffffff               #   Partitions: 1 entry, Partition 0, CurrentLeaderEpoch -1
      0000000000000004 ffffffff          #     FetchOffset 4 (inside the second batch), LastFetchedEpoch -1
      ffffffffffffffff 00100000          #     LogStartOffset -1, PartitionMaxBytes 1 MiB
      00 00                              #   tagged fields of partition, topic
      01                                 # ForgottenTopicsData: compact array of 0
      01                                 # RackId "" (compact string)
      00                                 # tagged fields
    `),
  },
  {
    name: 'hand OffsetForLeaderEpoch v3',
    hex: frame(`
      0017 0003 0000006b ${CLIENT}       # OffsetForLeaderEpoch v3 (a consumer's, ReplicaId since v3), correlationId 107
      ffffffff                           # ReplicaId -1 (a consumer)
      00000001 000b ${TOPIC}             # Topics: 1 entry, Topic "golden-hand"
      00000001 00000000                  #   Partitions: 1 entry, Partition 0
      ffffffff 00000000                  #     CurrentLeaderEpoch -1, LeaderEpoch 0
    `),
  },
  {
    name: 'hand AlterConfigs v1',
    hex: frame(`
      0021 0001 0000006c ${CLIENT}       # AlterConfigs v1 (legacy, replaced by IncrementalAlterConfigs), correlationId 108
      00000001                           # Resources: 1 entry
      02 000b ${TOPIC}                   #   ResourceType 2 (TOPIC), ResourceName "golden-hand"
      00000001                           #   Configs: 1 entry
      000c 726574656e74696f6e2e6d73      #     Name "retention.ms"
      0008 3836343030303030              #     Value "86400000"
      00                                 # ValidateOnly false
    `),
  },
  {
    name: 'hand WriteTxnMarkers v1',
    hex: frame(`
      001b 0001 0000006d ${CLIENT} 00    # WriteTxnMarkers v1 (flexible: header v2; only brokers send it), correlationId 109
      02                                 # Markers: compact array of 1
      000000000000002a 0000 00           #   ProducerId 42, ProducerEpoch 0, TransactionResult false (abort)
      02 0c ${TOPIC}                     #   Topics: 1 entry, Name "golden-hand"
      02 00000000 00                     #     PartitionIndexes [0]; tagged fields of the topic
      00000000 00                        #   CoordinatorEpoch 0; tagged fields of the marker
      00                                 # tagged fields
    `),
  },
];
