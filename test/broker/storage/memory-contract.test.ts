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
import { aclStoreContract, credentialStoreContract } from './contract/security-stores.contract.js';
import { txnStoreContract } from './contract/txn-store.contract.js';
import { shareStoreContract } from './contract/share-store.contract.js';
import { MemoryShareStore } from '../support/memory-share-store.js';
import { MemoryAclStore } from '../support/memory-acl-store.js';
import { MemoryCredentialStore } from '../support/memory-credential-store.js';
import { MemoryTxnStore } from '../transactions/memory-txn-store.js';

const opened = <S>(store: S) => async () => ({ store, close: async () => {} });

describe('in-memory LogStore', () => logStoreContract(async () => opened(new MemoryLogStore())()));
describe('in-memory LogStore under a Partition', () => partitionContract(async () => opened(new MemoryLogStore())()));
describe('in-memory GroupStore', () => groupStoreContract(async () => opened(new MemoryGroupStore())()));
describe('in-memory SharePartitionStore', () => shareStoreContract(async () => opened(new MemoryShareStore())()));
describe('in-memory ClusterStore', () => clusterStoreContract(async () => {
  // Lease time is the store's clock here: the test moves it instead of sleeping.
  let t = 1_000_000;
  return { store: new MemoryClusterStore(() => t), close: async () => {}, wait: async (ms: number) => { t += ms; } };
}));
describe('in-memory TxnStore', () => txnStoreContract(async () => opened(new MemoryTxnStore())()));
describe('in-memory AclStore', () => aclStoreContract(async () => opened(new MemoryAclStore())()));
describe('in-memory CredentialStore', () => credentialStoreContract(async () => opened(new MemoryCredentialStore())()));
