// ShareFetch (key 78), KIP-932. Version 0 (Kafka 4.0 early access) was removed
// in 4.1: v1 is the stable version (MaxRecords, BatchSize, the acquisition lock
// timeout in the answer); v2 adds ShareAcquireMode and RENEW acknowledgements
// (KIP-1206, KIP-1222).
import { f, message, s, type ApiDef } from '../schema.js';

const leader = s('CurrentLeader', 'LeaderIdAndEpoch', '0+', [
  f('LeaderId', 'int32', '0+'),
  f('LeaderEpoch', 'int32', '0+'),
]);

export const nodeEndpoints = s('NodeEndpoints', '[]NodeEndpoint', '0+', [
  f('NodeId', 'int32', '0+'),
  f('Host', 'string', '0+'),
  f('Port', 'int32', '0+'),
  f('Rack', 'string', '0+', { nullable: '0+', default: null }),
]);

export const acknowledgementBatches = s('AcknowledgementBatches', '[]AcknowledgementBatch', '0+', [
  f('FirstOffset', 'int64', '0+'),
  f('LastOffset', 'int64', '0+'),
  f('AcknowledgeTypes', '[]int8', '0+'),
]);

export const ShareFetch = {
  apiKey: 78,
  name: 'ShareFetch',
  request: message('ShareFetchRequest', '1-2', '0+', [
    f('GroupId', 'string', '0+', { nullable: '0+', default: null }),
    f('MemberId', 'string', '0+', { nullable: '0+' }),
    f('ShareSessionEpoch', 'int32', '0+'),
    f('MaxWaitMs', 'int32', '0+'),
    f('MinBytes', 'int32', '0+'),
    f('MaxBytes', 'int32', '0+', { default: 0x7fffffff }),
    f('MaxRecords', 'int32', '1+'),
    f('BatchSize', 'int32', '1+'),
    f('ShareAcquireMode', 'int8', '2+'),
    f('IsRenewAck', 'bool', '2+', { default: false }),
    s('Topics', '[]FetchTopic', '0+', [
      f('TopicId', 'uuid', '0+'),
      s('Partitions', '[]FetchPartition', '0+', [
        f('PartitionIndex', 'int32', '0+'),
        f('PartitionMaxBytes', 'int32', '0'),
        acknowledgementBatches,
      ]),
    ]),
    s('ForgottenTopicsData', '[]ForgottenTopic', '0+', [
      f('TopicId', 'uuid', '0+'),
      f('Partitions', '[]int32', '0+'),
    ]),
  ]),
  response: message('ShareFetchResponse', '1-2', '0+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    f('ErrorCode', 'int16', '0+'),
    f('ErrorMessage', 'string', '0+', { nullable: '0+', default: null }),
    f('AcquisitionLockTimeoutMs', 'int32', '1+'),
    s('Responses', '[]ShareFetchableTopicResponse', '0+', [
      f('TopicId', 'uuid', '0+'),
      s('Partitions', '[]PartitionData', '0+', [
        f('PartitionIndex', 'int32', '0+'),
        f('ErrorCode', 'int16', '0+'),
        f('ErrorMessage', 'string', '0+', { nullable: '0+', default: null }),
        f('AcknowledgeErrorCode', 'int16', '0+'),
        f('AcknowledgeErrorMessage', 'string', '0+', { nullable: '0+', default: null }),
        leader,
        f('Records', 'records', '0+', { nullable: '0' }),
        s('AcquiredRecords', '[]AcquiredRecords', '0+', [
          f('FirstOffset', 'int64', '0+'),
          f('LastOffset', 'int64', '0+'),
          f('DeliveryCount', 'int16', '0+'),
        ]),
      ]),
    ]),
    nodeEndpoints,
  ]),
} satisfies ApiDef;
