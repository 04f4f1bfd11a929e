// What the transaction side needs of other brokers: one Kafka request to a
// broker's address, answered with its decoded response (WriteTxnMarkers to a
// partition's leader, AddPartitionsToTxn verification at a transaction
// coordinator). server/broker-client.ts implements it over TCP.
import type { ApiDef } from '../protocol/schema.js';
import type { Decoded, Encodable } from '../protocol/typed.js';

export interface BrokerAddress { host: string; port: number }

export interface BrokerClient {
  /** Sends `body` as api's request and resolves to the decoded response (its type derived from the definition); rejects when the broker cannot be reached or does not answer in time. */
  request<A extends ApiDef>(addr: BrokerAddress, api: A, version: number, body: Encodable<A['request']>): Promise<Decoded<A['response']>>;
}
