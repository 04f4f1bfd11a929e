import { f, message, type ApiDef } from '../schema.js';

export const InitProducerId = {
  apiKey: 22,
  name: 'InitProducerId',
  request: message('InitProducerIdRequest', '0-4', '2+', [
    f('TransactionalId', 'string', '0+', { nullable: '0+' }),
    f('TransactionTimeoutMs', 'int32', '0+'),
    f('ProducerId', 'int64', '3+', { default: -1 }),
    f('ProducerEpoch', 'int16', '3+', { default: -1 }),
  ]),
  response: message('InitProducerIdResponse', '0-4', '2+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    f('ErrorCode', 'int16', '0+'),
    f('ProducerId', 'int64', '0+', { default: -1 }),
    f('ProducerEpoch', 'int16', '0+'),
  ]),
} satisfies ApiDef;
