// Metadata, DescribeCluster and FindCoordinator answer with the addresses of
// the listener the request came in on; a broker without that listener is
// left out (partitions it leads: LISTENER_NOT_FOUND from Metadata v6,
// LEADER_NOT_AVAILABLE before). Registrations written before listeners
// existed (no endpoints) count as one PLAINTEXT listener.
import { describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../../broker/src/config/config.js';
import { LogManager } from '../../../broker/src/log/log-manager.js';
import { metadataHandler } from '../../../broker/src/handlers/metadata.js';
import { describeClusterHandler } from '../../../broker/src/handlers/describe-cluster.js';
import { findCoordinatorHandler } from '../../../broker/src/handlers/find-coordinator.js';
import { coordinatorFor } from '../../../broker/src/handlers/support/cluster-view.js';
import type { BrokerServices, RequestContext } from '../../../broker/src/handlers/support/types.js';
import type { ClusterView } from '../../../broker/src/cluster/cluster-view.js';
import { addressFor, interBrokerListener } from '../../../broker/src/cluster/endpoints.js';
import { registrationInfo, type BrokerInfo } from '../../../broker/src/storage/cluster-store.js';
import { createLogger } from '../../../common/logger/logger.js';
import { ErrorCode } from '../../../common/errors.js';
import { newSession, type SecurityProtocol } from '../../../broker/src/security/session.js';
import { MemoryLogStore } from '../support/memory-log-store.js';
import { Metadata } from '../../../broker/src/protocol/messages/metadata.js';
import { FindCoordinator } from '../../../broker/src/protocol/messages/find-coordinator.js';
import { wireRequest } from '../support/requests.js';

// A stored registration of each format, read the way RedisClusterStore reads them.
const stored: string[] = [
  JSON.stringify({ nodeId: 1, host: '10.0.0.1', port: 9092, rack: null, instance: '1:a', expiresAt: 1,
    endpoints: [{ listener: 'PLAINTEXT', host: '10.0.0.1', port: 9092 }, { listener: 'SSL', host: 'b1.example', port: 9093 }] }),
  JSON.stringify({ nodeId: 2, host: '10.0.0.2', port: 9092, rack: 'r2', instance: '2:b', expiresAt: 1, endpoints: [{ listener: 'PLAINTEXT', host: '10.0.0.2', port: 9092 }] }),
  // before listeners: one address, no endpoints (a broker of the previous version during a rolling upgrade)
  JSON.stringify({ nodeId: 3, host: '10.0.0.3', port: 9092, rack: null, instance: '3:c', expiresAt: 1 }),
];
const brokers: BrokerInfo[] = stored.map((s) => registrationInfo(JSON.parse(s) as BrokerInfo));

/** Broker 1 answers; partition p is led by broker p+1; coordinator slot 0 by broker 2. */
function services(): BrokerServices {
  const config = loadBrokerConfig([], {});
  const cluster: ClusterView = {
    nodeId: 1,
    liveBrokers: () => brokers,
    leads: () => false,
    claim: async () => false,
    leaderOf: (u) => (u.kind === 'partition' ? u.partition + 1 : 2),
    observedEpoch: () => 5,
    coordinatorSlot: () => 0,
    coordinatorEpoch: () => null,
  };
  return { config, clusterId: 'c', log: new LogManager(new MemoryLogStore(), config), store: new MemoryLogStore(), logger: createLogger('error', 'test'), cluster } as unknown as BrokerServices;
}

const ctx = (apiVersion: number, listener: string, protocol: SecurityProtocol): RequestContext => (
  { apiKey: 0, apiVersion, correlationId: 1, clientId: 't', session: newSession(1, '127.0.0.1', listener, protocol) });

describe('addresses by listener', () => {
  it('addressFor: the endpoint of the listener; an old registration answers PLAINTEXT listeners only', () => {
    expect(brokers[0]!.endpoints).toHaveLength(2);
    expect(brokers[2]!.endpoints).toBeUndefined();
    const ssl = { listenerName: 'SSL', securityProtocol: 'SSL' as const };
    const plain = { listenerName: 'PLAINTEXT', securityProtocol: 'PLAINTEXT' as const };
    const client = { listenerName: 'CLIENT', securityProtocol: 'PLAINTEXT' as const };
    expect(brokers.map((b) => addressFor(b, ssl))).toEqual([{ host: 'b1.example', port: 9093 }, null, null]);
    expect(brokers.map((b) => addressFor(b, plain))).toEqual([{ host: '10.0.0.1', port: 9092 }, { host: '10.0.0.2', port: 9092 }, { host: '10.0.0.3', port: 9092 }]);
    // a listener named otherwise: only the old registration (whose one listener was PLAINTEXT) has an address on it
    expect(brokers.map((b) => addressFor(b, client))).toEqual([null, null, { host: '10.0.0.3', port: 9092 }]);
  });

  it('Metadata on the SSL listener lists only brokers with an SSL address; their partitions get LISTENER_NOT_FOUND (v6+) or LEADER_NOT_AVAILABLE', async () => {
    const b = services();
    await b.log.createTopic('t', 3, {});
    const on = async (v: number, l: string, p: SecurityProtocol) => (await metadataHandler.handle(wireRequest(Metadata, v, { topics: [{ name: 't', topicId: '00000000-0000-0000-0000-000000000000' }], allowAutoTopicCreation: false }), ctx(v, l, p), b))!;
    const ssl = await on(12, 'SSL', 'SSL');
    expect(ssl.brokers.map((x) => [x.nodeId, x.host, x.port])).toEqual([[1, 'b1.example', 9093]]);
    expect(ssl.topics[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode, p.leaderId])).toEqual([[0, ErrorCode.NONE, 1], [1, ErrorCode.LISTENER_NOT_FOUND, 2], [2, ErrorCode.LISTENER_NOT_FOUND, 3]]);
    const old = await on(5, 'SSL', 'SSL');
    expect(old.topics[0]!.partitions.map((p) => p.errorCode)).toEqual([ErrorCode.NONE, ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.LEADER_NOT_AVAILABLE]);
    const plain = await on(12, 'PLAINTEXT', 'PLAINTEXT');
    expect(plain.brokers.map((x) => `${x.nodeId}=${x.host}:${x.port}`)).toEqual(['1=10.0.0.1:9092', '2=10.0.0.2:9092', '3=10.0.0.3:9092']);
    expect(plain.topics[0]!.partitions.map((p) => p.errorCode)).toEqual([ErrorCode.NONE, ErrorCode.NONE, ErrorCode.NONE]);
  });

  it('DescribeCluster and FindCoordinator use the request listener; without one, coordinatorFor gives the inter-broker address', async () => {
    const b = services();
    const dc = (await describeClusterHandler.handle({ endpointType: 1, includeClusterAuthorizedOperations: false }, ctx(1, 'SSL', 'SSL'), b))!;
    expect(dc.brokers).toEqual([{ brokerId: 1, host: 'b1.example', port: 9093, rack: null }]);
    // the coordinator (broker 2) has no SSL listener: Kafka answers COORDINATOR_NOT_AVAILABLE
    const fcSsl = (await findCoordinatorHandler.handle(wireRequest(FindCoordinator, 3, { key: 'g', keyType: 0 }), ctx(3, 'SSL', 'SSL'), b))!;
    expect(fcSsl.errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    const fcPlain = (await findCoordinatorHandler.handle(wireRequest(FindCoordinator, 3, { key: 'g', keyType: 0 }), ctx(3, 'PLAINTEXT', 'PLAINTEXT'), b))!;
    expect(fcPlain).toMatchObject({ errorCode: ErrorCode.NONE, nodeId: 2, host: '10.0.0.2', port: 9092 });
    expect(coordinatorFor(b, 'g')).toEqual({ nodeId: 2, host: '10.0.0.2', port: 9092 });
  });

  it('other brokers use the first PLAINTEXT listener, else the first listener', () => {
    const names = (...sets: string[]) => interBrokerListener(loadBrokerConfig(sets.flatMap((x) => ['--set', x]), {}).listeners).name;
    expect(names('listeners=SSL://:9093,PLAINTEXT://:9092,INTERNAL://:9094', 'listener.security.protocol.map=SSL:SSL,PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT', 'ssl.keystore.location=/k.pem')).toBe('PLAINTEXT');
    expect(names('listeners=SSL://:9093,SASL_SSL://:9094', 'ssl.keystore.location=/k.pem')).toBe('SSL');
  });
});
