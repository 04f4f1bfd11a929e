// DeleteShareGroupOffsets (key 92), v0 (KIP-932): removes an empty share
// group's state of whole topics. Definition written from the Kafka 4.x
// client's message classes (no spec in shared/).
import { f, message, s, type ApiDef } from '../schema.js';

export const DeleteShareGroupOffsets = {
  apiKey: 92,
  name: 'DeleteShareGroupOffsets',
  request: message('DeleteShareGroupOffsetsRequest', '0', '0+', [
    f('GroupId', 'string', '0+'),
    s('Topics', '[]DeleteShareGroupOffsetsRequestTopic', '0+', [
      f('TopicName', 'string', '0+'),
    ]),
  ]),
  response: message('DeleteShareGroupOffsetsResponse', '0', '0+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    f('ErrorCode', 'int16', '0+'),
    f('ErrorMessage', 'string', '0+', { nullable: '0+', default: null }),
    s('Responses', '[]DeleteShareGroupOffsetsResponseTopic', '0+', [
      f('TopicName', 'string', '0+'),
      f('TopicId', 'uuid', '0+'),
      f('ErrorCode', 'int16', '0+'),
      f('ErrorMessage', 'string', '0+', { nullable: '0+', default: null }),
    ]),
  ]),
} satisfies ApiDef;
