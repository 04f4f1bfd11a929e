// The domain services handlers receive, assembled for unit tests of handlers
// over an in-memory store: a real LogManager and GroupCoordinator, and a
// transaction side that answers every question with `txnAnswer` (tests of
// transactions pass their own).
import { loadBrokerConfig } from '../../../broker/src/config/config.js';
import { LogManager } from '../../../broker/src/log/log-manager.js';
import { soloCluster } from '../../../broker/src/cluster/cluster-view.js';
import { createLogger } from '../../../common/logger/logger.js';
import { ErrorCode } from '../../../common/errors.js';
import { GroupCoordinator } from '../../../broker/src/groups/coordinator.js';
import type { BrokerServices } from '../../../broker/src/handlers/support/types.js';
import type { TransactionServices } from '../../../broker/src/transactions/types.js';
import { MemoryLogStore } from './memory-log-store.js';
import { MemoryGroupStore } from './memory-group-store.js';
import { systemClock, type Clock } from '../../../common/clock.js';

/** A transaction side for handlers that never see transactional data: every verification is refused. */
export const noTransactions: TransactionServices = {
  verify: async () => ErrorCode.COORDINATOR_NOT_AVAILABLE,
  addPartition: async () => ErrorCode.COORDINATOR_NOT_AVAILABLE,
  completeTxnOffsets: async () => {},
};

export function unitServices(o: { store?: MemoryLogStore; txn?: TransactionServices; groups?: GroupCoordinator; clock?: Clock } = {}): BrokerServices {
  const config = loadBrokerConfig([], {});
  const store = o.store ?? new MemoryLogStore();
  const cluster = soloCluster({ nodeId: config.nodeId, host: '127.0.0.1', port: 9092, rack: null });
  const groups = o.groups ?? new GroupCoordinator(new MemoryGroupStore(), o.clock ?? systemClock, { settings: { initialRebalanceDelayMs: 0 } });
  return { config, clusterId: 'c', log: new LogManager(store, config), logger: createLogger('error', 'test'), cluster, groups, txn: o.txn ?? noTransactions };
}
