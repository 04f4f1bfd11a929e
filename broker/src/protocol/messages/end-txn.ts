import { f, message, type ApiDef } from '../schema.js';

export const EndTxn = {
  apiKey: 26,
  name: 'EndTxn',
  request: message('EndTxnRequest', '0-5', '3+', [
    f('TransactionalId', 'string', '0+'),
    f('ProducerId', 'int64', '0+'),
    f('ProducerEpoch', 'int16', '0+'),
    f('Committed', 'bool', '0+'),
  ]),
  response: message('EndTxnResponse', '0-5', '3+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    f('ErrorCode', 'int16', '0+'),
    // v5 (KIP-890 part 2): the epoch the coordinator bumped to.
    f('ProducerId', 'int64', '5+', { default: -1 }),
    f('ProducerEpoch', 'int16', '5+', { default: -1 }),
  ]),
} satisfies ApiDef;
