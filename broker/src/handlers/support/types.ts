import type { RemoteLog } from '../../storage/remote-log.js';
import type { ApiDef } from '../../protocol/schema.js';
import type { SchemaIds } from '../../storage/schema-ids.js';
import type { RequestOf, ResponseOf } from '../../protocol/typed.js';
import type { BrokerConfig } from '../../config/config.js';
import type { LogManager } from '../../log/log-manager.js';
import type { Logger } from '../../../../common/logger/logger.js';
import type { GroupCoordinator } from '../../groups/coordinator.js';
import type { GroupConfigs } from '../../groups/config/group-configs.js';
import type { ClusterView } from '../../cluster/cluster-view.js';
import type { TransactionCoordinator } from '../../transactions/coordinator.js';
import type { TransactionServices } from '../../transactions/types.js';
import type { Session } from '../../security/session.js';
import type { AclService } from '../../security/acl/acl-service.js';
import type { CredentialStore } from '../../security/sasl/credentials.js';
import type { SaslAuthenticator } from '../../security/sasl/authenticator.js';
import type { FetchSessionCache } from '../../fetch/fetch-sessions.js';
import type { QuotaService } from '../../quotas/quota-service.js';
import type { ShareService } from '../../groups/share/share-service.js';

/** What handlers may use: domain services only, never sockets or Redis clients. */
export interface BrokerServices {
  config: BrokerConfig;
  clusterId: string;
  log: LogManager;
  logger: Logger;
  /** The consumer-group coordinator (classic protocol). */
  groups: GroupCoordinator;
  /** Group configs (the GROUP config resource); absent in unit tests of other handlers (GROUP resources: INVALID_REQUEST). */
  groupConfigs?: GroupConfigs;
  cluster: ClusterView;
  /** The transaction coordinator; absent in unit tests of other handlers (answers COORDINATOR_NOT_AVAILABLE). */
  transactions?: TransactionCoordinator;
  /** The transaction coordinator's side of transactions: KIP-890 verification, transactional offset commits. */
  txn: TransactionServices;
  /** Authorization (ACLs); absent in unit tests of other handlers (everything allowed). */
  acls?: AclService;
  /** SCRAM users (Alter/DescribeUserScramCredentials, SASL authentication); absent in unit tests of other handlers. */
  credentials?: CredentialStore;
  /** Incremental fetch sessions (KIP-227); absent: every fetch is answered without a session. */
  fetchSessions?: FetchSessionCache;
  /** Share groups (KIP-932): their coordinator, share-partitions and share sessions; absent: the share APIs answer errors. */
  shares?: ShareService;
  /** Client quotas (Describe/AlterClientQuotas, throttling); absent in unit tests of other handlers. */
  quotas?: QuotaService;
  /** Schema ids of the Schema Registry, for produce-side schema validation; absent: topics that ask for it refuse every record. */
  schemaIds?: SchemaIds;
  /** The lake as the remote tier of tiered topics (remote.storage.enable=true); absent: nothing is read below the Redis log start. */
  remoteLog?: RemoteLog;
}

export interface RequestContext {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
  /** The connection's id, listener, peer address and principal (authorization reads them). */
  session: Session;
  /** The connection's SASL state on a SASL_PLAINTEXT or SASL_SSL listener; absent on others. */
  sasl?: SaslAuthenticator;
}

/** The fields every handler has, whatever its API. */
interface HandlerBase<A extends ApiDef> {
  api: A;
  /** Handled range; must lie within the definition's validVersions. */
  minVersion: number;
  maxVersion: number;
  /**
   * The minimum ApiVersions advertises when it is below minVersion: versions
   * in [advertisedMinVersion, minVersion) are listed but refused on use by
   * closing the connection (only Produce 0-2, KAFKA-18659).
   */
  advertisedMinVersion?: number;
}

/**
 * The handler of one API: it receives the request decoded by A's definition
 * and resolves to a response A's definition encodes, or to null when no
 * response is sent (Produce acks=0).
 */
export interface HandlerOf<A extends ApiDef> extends HandlerBase<A> {
  handle(req: RequestOf<A>, ctx: RequestContext, broker: BrokerServices): Promise<ResponseOf<A> | null>;
}

/**
 * Any handler, as the registry lists it: a request is the record decode()
 * produced for `api`, the response a record encode() writes. Every
 * HandlerOf<typeof X> is one (its typed records are such records; method
 * parameters compare both ways).
 */
export interface Handler extends HandlerBase<ApiDef> {
  handle(req: Record<string, unknown>, ctx: RequestContext, broker: BrokerServices): Promise<Record<string, unknown> | null>;
}
