// ShareAcknowledge (key 79), KIP-932. Version 0 (Kafka 4.0 early access) was
// removed in 4.1: v1 is the stable version; v2 adds RENEW acknowledgements and
// the acquisition lock timeout in the answer (KIP-1222).
import { f, message, s, type ApiDef } from '../schema.js';
import { acknowledgementBatches, nodeEndpoints } from './share-fetch.js';

export const ShareAcknowledge = {
  apiKey: 79,
  name: 'ShareAcknowledge',
  request: message('ShareAcknowledgeRequest', '1-2', '0+', [
    f('GroupId', 'string', '0+', { nullable: '0+', default: null }),
    f('MemberId', 'string', '0+', { nullable: '0+' }),
    f('ShareSessionEpoch', 'int32', '0+'),
    f('IsRenewAck', 'bool', '2+', { default: false }),
    s('Topics', '[]AcknowledgeTopic', '0+', [
      f('TopicId', 'uuid', '0+'),
      s('Partitions', '[]AcknowledgePartition', '0+', [
        f('PartitionIndex', 'int32', '0+'),
        acknowledgementBatches,
      ]),
    ]),
  ]),
  response: message('ShareAcknowledgeResponse', '1-2', '0+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    f('ErrorCode', 'int16', '0+'),
    f('ErrorMessage', 'string', '0+', { nullable: '0+', default: null }),
    f('AcquisitionLockTimeoutMs', 'int32', '2+'),
    s('Responses', '[]ShareAcknowledgeTopicResponse', '0+', [
      f('TopicId', 'uuid', '0+'),
      s('Partitions', '[]PartitionData', '0+', [
        f('PartitionIndex', 'int32', '0+'),
        f('ErrorCode', 'int16', '0+'),
        f('ErrorMessage', 'string', '0+', { nullable: '0+', default: null }),
        s('CurrentLeader', 'LeaderIdAndEpoch', '0+', [
          f('LeaderId', 'int32', '0+'),
          f('LeaderEpoch', 'int32', '0+'),
        ]),
      ]),
    ]),
    nodeEndpoints,
  ]),
} satisfies ApiDef;
