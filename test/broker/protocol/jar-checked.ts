// Message definitions newer than the copy of Kafka's specs in shared/ (it has
// only Kafka 4.0's early-access version 0 of the share-group APIs, which 4.1
// removed): spec-check.test.ts leaves them to jar-spec-check.test.ts, which
// checks them against the installed Kafka 4.x client jars; so are the share
// groups' admin APIs, which the copy lacks.
export const CHECKED_AGAINST_JARS = new Set([
  'ShareGroupHeartbeatRequest', 'ShareGroupHeartbeatResponse', 'ShareGroupDescribeRequest', 'ShareGroupDescribeResponse',
  'ShareFetchRequest', 'ShareFetchResponse', 'ShareAcknowledgeRequest', 'ShareAcknowledgeResponse',
  // Not in shared/ at all: written from the Kafka 4.x client.
  'DescribeShareGroupOffsetsRequest', 'DescribeShareGroupOffsetsResponse', 'AlterShareGroupOffsetsRequest', 'AlterShareGroupOffsetsResponse',
  'DeleteShareGroupOffsetsRequest', 'DeleteShareGroupOffsetsResponse',
  // v1 (KIP-1099, member types) is newer than the copy, which has v0 only.
  'ConsumerGroupDescribeRequest', 'ConsumerGroupDescribeResponse',
]);
