// The storage contract (test/broker/storage/contract/) over the in-memory
// stores the unit tests of handlers use; the same suites run over the Redis
// stores in test/integration/storage/redis-contract.test.ts.
import { describe } from 'vitest';
import { MemoryLogStore } from '../support/memory-log-store.js';
import { MemoryGroupStore } from '../support/memory-group-store.js';
import { MemoryClusterStore } from '../cluster/memory-cluster-store.js';
import { logStoreContract } from './contract/log-store.contract.js';
import { partitionContract } from './contract/partition.contract.js';
import { groupStoreContract } from './contract/group-store.contract.js';
import { clusterStoreContract } from './contract/cluster-store.contract.js';

const opened = <S>(store: S) => async () => ({ store, close: async () => {} });

describe('in-memory LogStore', () => logStoreContract(async () => opened(new MemoryLogStore())()));
describe('in-memory LogStore under a Partition', () => partitionContract(async () => opened(new MemoryLogStore())()));
describe('in-memory GroupStore', () => groupStoreContract(async () => opened(new MemoryGroupStore())()));
describe('in-memory ClusterStore', () => clusterStoreContract(async () => opened(new MemoryClusterStore())()));
