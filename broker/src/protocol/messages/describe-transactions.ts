import { f, message, s, type ApiDef } from '../schema.js';

export const DescribeTransactions = {
  apiKey: 65,
  name: 'DescribeTransactions',
  request: message('DescribeTransactionsRequest', '0', '0+', [
    f('TransactionalIds', '[]string', '0+'),
  ]),
  response: message('DescribeTransactionsResponse', '0', '0+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    s('TransactionStates', '[]TransactionState', '0+', [
      f('ErrorCode', 'int16', '0+'),
      f('TransactionalId', 'string', '0+'),
      f('TransactionState', 'string', '0+'),
      f('TransactionTimeoutMs', 'int32', '0+'),
      f('TransactionStartTimeMs', 'int64', '0+'),
      f('ProducerId', 'int64', '0+'),
      f('ProducerEpoch', 'int16', '0+'),
      s('Topics', '[]TopicData', '0+', [
        f('Topic', 'string', '0+'),
        f('Partitions', '[]int32', '0+'),
      ]),
    ]),
  ]),
} satisfies ApiDef;
