import { f, message, s, type ApiDef } from '../schema.js';

export const OffsetDelete = {
  apiKey: 47,
  name: 'OffsetDelete',
  request: message('OffsetDeleteRequest', '0', 'none', [
    f('GroupId', 'string', '0+'),
    s('Topics', '[]OffsetDeleteRequestTopic', '0+', [
      f('Name', 'string', '0+'),
      s('Partitions', '[]OffsetDeleteRequestPartition', '0+', [
        f('PartitionIndex', 'int32', '0+'),
      ]),
    ]),
  ]),
  response: message('OffsetDeleteResponse', '0', 'none', [
    f('ErrorCode', 'int16', '0+'),
    f('ThrottleTimeMs', 'int32', '0+'),
    s('Topics', '[]OffsetDeleteResponseTopic', '0+', [
      f('Name', 'string', '0+'),
      s('Partitions', '[]OffsetDeleteResponsePartition', '0+', [
        f('PartitionIndex', 'int32', '0+'),
        f('ErrorCode', 'int16', '0+'),
      ]),
    ]),
  ]),
} satisfies ApiDef;
