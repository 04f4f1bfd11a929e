// Which address of a broker a client is given: the one of the listener the
// client came in on (Kafka answers Metadata, FindCoordinator and
// DescribeCluster with the addresses of the request's listener). A broker
// without that listener has no address for this client: Kafka leaves it out
// of the broker list.
import type { BrokerInfo } from '../storage/cluster-store.js';
import type { ListenerConfig } from '../config/listeners.js';
import type { Session } from '../security/session.js';

export interface Address { host: string; port: number }

/**
 * The broker's address on `session`'s listener, null if it has none. A
 * registration without endpoints (written before listeners existed) served
 * one PLAINTEXT listener at host:port: it answers PLAINTEXT listeners only.
 */
export function addressFor(b: BrokerInfo, session: Pick<Session, 'listenerName' | 'securityProtocol'>): Address | null {
  if (!b.endpoints) return session.securityProtocol === 'PLAINTEXT' ? { host: b.host, port: b.port } : null;
  const e = b.endpoints.find((x) => x.listener === session.listenerName);
  return e ? { host: e.host, port: e.port } : null;
}

/**
 * The listener other brokers use (transaction markers): Runnel's broker
 * client speaks PLAINTEXT, so the first PLAINTEXT listener, else the first.
 */
export function interBrokerListener(listeners: readonly ListenerConfig[]): ListenerConfig {
  return listeners.find((l) => l.securityProtocol === 'PLAINTEXT') ?? listeners[0]!;
}
