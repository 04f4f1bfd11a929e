import { f, message, type ApiDef } from '../schema.js';

export const AddOffsetsToTxn = {
  apiKey: 25,
  name: 'AddOffsetsToTxn',
  request: message('AddOffsetsToTxnRequest', '0-4', '3+', [
    f('TransactionalId', 'string', '0+'),
    f('ProducerId', 'int64', '0+'),
    f('ProducerEpoch', 'int16', '0+'),
    f('GroupId', 'string', '0+'),
  ]),
  response: message('AddOffsetsToTxnResponse', '0-4', '3+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    f('ErrorCode', 'int16', '0+'),
  ]),
} satisfies ApiDef;
