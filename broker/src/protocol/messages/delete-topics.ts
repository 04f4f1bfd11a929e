import { f, message, s, type ApiDef } from '../schema.js';

export const DeleteTopics = {
  apiKey: 20,
  name: 'DeleteTopics',
  request: message('DeleteTopicsRequest', '1-6', '4+', [
    s('Topics', '[]DeleteTopicState', '6+', [
      f('Name', 'string', '6+', { nullable: '6+', default: null }),
      f('TopicId', 'uuid', '6+'),
    ]),
    f('TopicNames', '[]string', '0-5'),
    f('TimeoutMs', 'int32', '0+'),
  ]),
  response: message('DeleteTopicsResponse', '1-6', '4+', [
    f('ThrottleTimeMs', 'int32', '1+'),
    s('Responses', '[]DeletableTopicResult', '0+', [
      f('Name', 'string', '0+', { nullable: '6+' }),
      f('TopicId', 'uuid', '6+'),
      f('ErrorCode', 'int16', '0+'),
      f('ErrorMessage', 'string', '5+', { nullable: '5+', default: null }),
    ]),
  ]),
} satisfies ApiDef;
