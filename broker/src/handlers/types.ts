import type { ApiDef } from '../protocol/schema.js';
import type { BrokerConfig } from '../config.js';
import type { LogManager } from '../log/log-manager.js';
import type { LogStore } from '../storage/log-store.js';
import type { Logger } from '../logger.js';
import type { GroupCoordinator } from '../groups/coordinator.js';
import type { ClusterView } from '../cluster/cluster-view.js';
import type { TransactionCoordinator } from '../transactions/coordinator.js';
import type { TransactionServices } from '../transactions/types.js';
import type { Session } from '../security/session.js';
import type { FetchSessionCache } from '../fetch/fetch-sessions.js';

/** What handlers may use: domain services only, never sockets or Redis clients. */
export interface BrokerServices {
  config: BrokerConfig;
  clusterId: string;
  log: LogManager;
  store: LogStore;
  logger: Logger;
  /** The consumer-group coordinator (classic protocol). */
  groups: GroupCoordinator;
  cluster: ClusterView;
  /** The transaction coordinator; absent in unit tests of other handlers (answers COORDINATOR_NOT_AVAILABLE). */
  transactions?: TransactionCoordinator;
  /** The transaction coordinator's side of transactions: KIP-890 verification, transactional offset commits. */
  txn: TransactionServices;
  /** Incremental fetch sessions (KIP-227); absent: every fetch is answered without a session. */
  fetchSessions?: FetchSessionCache;
}

export interface RequestContext {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
  connectionId: number;
  /** Peer address as Kafka reports it ("/127.0.0.1"), for DescribeGroups; unset until the connection layer provides it. */
  clientHost?: string;
  /** The connection's listener and principal (authorization reads them). */
  session: Session;
}

export type Req = Record<string, any>;
export type Res = Record<string, any>;

export interface Handler {
  api: ApiDef;
  /** Advertised range; must lie within the definition's validVersions. */
  minVersion: number;
  maxVersion: number;
  /** Resolves to the response body, or null when no response is sent (Produce acks=0). */
  handle(req: Req, ctx: RequestContext, broker: BrokerServices): Promise<Res | null>;
}
