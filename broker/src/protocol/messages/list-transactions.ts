import { f, message, s, type ApiDef } from '../schema.js';

export const ListTransactions = {
  apiKey: 66,
  name: 'ListTransactions',
  request: message('ListTransactionsRequest', '0-1', '0+', [
    f('StateFilters', '[]string', '0+'),
    f('ProducerIdFilters', '[]int64', '0+'),
    // v1 (KIP-994): only transactions running longer than this many ms; -1 = any.
    f('DurationFilter', 'int64', '1+', { default: -1 }),
  ]),
  response: message('ListTransactionsResponse', '0-1', '0+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    f('ErrorCode', 'int16', '0+'),
    f('UnknownStateFilters', '[]string', '0+'),
    s('TransactionStates', '[]TransactionState', '0+', [
      f('TransactionalId', 'string', '0+'),
      f('ProducerId', 'int64', '0+'),
      f('TransactionState', 'string', '0+'),
    ]),
  ]),
} satisfies ApiDef;
