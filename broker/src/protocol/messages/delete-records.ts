import { f, message, s, type ApiDef } from '../schema.js';

export const DeleteRecords = {
  apiKey: 21,
  name: 'DeleteRecords',
  request: message('DeleteRecordsRequest', '0-2', '2+', [
    s('Topics', '[]DeleteRecordsTopic', '0+', [
      f('Name', 'string', '0+'),
      s('Partitions', '[]DeleteRecordsPartition', '0+', [
        f('PartitionIndex', 'int32', '0+'),
        f('Offset', 'int64', '0+'),
      ]),
    ]),
    f('TimeoutMs', 'int32', '0+'),
  ]),
  response: message('DeleteRecordsResponse', '0-2', '2+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    s('Topics', '[]DeleteRecordsTopicResult', '0+', [
      f('Name', 'string', '0+'),
      s('Partitions', '[]DeleteRecordsPartitionResult', '0+', [
        f('PartitionIndex', 'int32', '0+'),
        f('LowWatermark', 'int64', '0+'),
        f('ErrorCode', 'int16', '0+'),
      ]),
    ]),
  ]),
} satisfies ApiDef;
