import { f, message, s, type ApiDef } from '../schema.js';

export const CreatePartitions = {
  apiKey: 37,
  name: 'CreatePartitions',
  request: message('CreatePartitionsRequest', '0-3', '2+', [
    s('Topics', '[]CreatePartitionsTopic', '0+', [
      f('Name', 'string', '0+'),
      f('Count', 'int32', '0+'),
      s('Assignments', '[]CreatePartitionsAssignment', '0+', [
        f('BrokerIds', '[]int32', '0+'),
      ], { nullable: '0+' }),
    ]),
    f('TimeoutMs', 'int32', '0+'),
    f('ValidateOnly', 'bool', '0+'),
  ]),
  response: message('CreatePartitionsResponse', '0-3', '2+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    s('Results', '[]CreatePartitionsTopicResult', '0+', [
      f('Name', 'string', '0+'),
      f('ErrorCode', 'int16', '0+'),
      f('ErrorMessage', 'string', '0+', { nullable: '0+', default: null }),
    ]),
  ]),
} satisfies ApiDef;
