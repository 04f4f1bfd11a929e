import { f, message, s, type ApiDef } from '../schema.js';

// v12 (Kafka 4.0, KIP-890 part 2) has the body of v11: a transactional batch sent
// with it adds its partition to the transaction (transactions v2).
export const Produce = {
  apiKey: 0,
  name: 'Produce',
  request: message('ProduceRequest', '3-12', '9+', [
    f('TransactionalId', 'string', '3+', { nullable: '3+', default: null }),
    f('Acks', 'int16', '0+'),
    f('TimeoutMs', 'int32', '0+'),
    s('TopicData', '[]TopicProduceData', '0+', [
      f('Name', 'string', '0+'),
      s('PartitionData', '[]PartitionProduceData', '0+', [
        f('Index', 'int32', '0+'),
        f('Records', 'records', '0+', { nullable: '0+' }),
      ]),
    ]),
  ]),
  response: message('ProduceResponse', '3-12', '9+', [
    s('Responses', '[]TopicProduceResponse', '0+', [
      f('Name', 'string', '0+'),
      s('PartitionResponses', '[]PartitionProduceResponse', '0+', [
        f('Index', 'int32', '0+'),
        f('ErrorCode', 'int16', '0+'),
        f('BaseOffset', 'int64', '0+'),
        f('LogAppendTimeMs', 'int64', '2+', { default: -1 }),
        f('LogStartOffset', 'int64', '5+', { default: -1 }),
        s('RecordErrors', '[]BatchIndexAndErrorMessage', '8+', [
          f('BatchIndex', 'int32', '8+'),
          f('BatchIndexErrorMessage', 'string', '8+', { nullable: '8+', default: null }),
        ]),
        f('ErrorMessage', 'string', '8+', { nullable: '8+', default: null }),
        s('CurrentLeader', 'LeaderIdAndEpoch', '10+', [
          f('LeaderId', 'int32', '10+', { default: -1 }),
          f('LeaderEpoch', 'int32', '10+', { default: -1 }),
        ], { tagged: '10+', tag: 0 }),
      ]),
    ]),
    f('ThrottleTimeMs', 'int32', '1+', { default: 0 }),
    s('NodeEndpoints', '[]NodeEndpoint', '10+', [
      f('NodeId', 'int32', '10+'),
      f('Host', 'string', '10+'),
      f('Port', 'int32', '10+'),
      f('Rack', 'string', '10+', { nullable: '10+', default: null }),
    ], { tagged: '10+', tag: 0 }),
  ]),
} satisfies ApiDef;
