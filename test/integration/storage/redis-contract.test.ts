// The storage contract (test/broker/storage/contract/) over the Redis stores,
// against a real server (RUNNEL_TEST_BACKEND); the same suites run over the
// in-memory stores in test/broker/storage/memory-contract.test.ts. Each test
// opens its stores under a fresh key prefix, so one server serves them all.
import { afterAll, beforeAll, describe } from 'vitest';
import { Keys } from '../../../common/keys.js';
import { openRedis } from '../../../common/redis/connect.js';
import { RedisLogStore } from '../../../broker/src/redis/redis-log-store.js';
import { RedisGroupStore } from '../../../broker/src/redis/redis-group-store.js';
import { RedisClusterStore } from '../../../broker/src/redis/redis-cluster-store.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { logStoreContract } from '../../broker/storage/contract/log-store.contract.js';
import { partitionContract } from '../../broker/storage/contract/partition.contract.js';
import { groupStoreContract } from '../../broker/storage/contract/group-store.contract.js';
import { clusterStoreContract } from '../../broker/storage/contract/cluster-store.contract.js';
import { aclStoreContract, credentialStoreContract } from '../../broker/storage/contract/security-stores.contract.js';
import { txnStoreContract } from '../../broker/storage/contract/txn-store.contract.js';
import { shareStoreContract } from '../../broker/storage/contract/share-store.contract.js';
import { RedisShareStore } from '../../../broker/src/redis/redis-share-store.js';
import { RedisTxnStore } from '../../../broker/src/redis/redis-txn-store.js';
import { RedisAclStore } from '../../../broker/src/redis/redis-acl-store.js';
import { RedisCredentialStore } from '../../../broker/src/redis/redis-credential-store.js';

let redis: RedisServer;
beforeAll(async () => { redis = await startRedis(); });
afterAll(async () => { await redis?.stop(); });

let n = 0;
const prefix = () => `ct${++n}`;

async function logStore() {
  const store = new RedisLogStore(redis.url, prefix());
  await store.connect();
  return { store, close: () => store.close() };
}

/** The group and cluster stores share a plain client, as the broker's do. */
async function onClient<S>(make: (client: Awaited<ReturnType<typeof openRedis>>['client'], p: string) => S) {
  const { client } = await openRedis(redis.url);
  return { store: make(client, prefix()), close: async () => { client.disconnect(); } };
}

describe('Redis LogStore', () => logStoreContract(logStore));
describe('Redis LogStore under a Partition', () => partitionContract(logStore));
describe('Redis GroupStore', () => groupStoreContract(() => onClient((c, p) => new RedisGroupStore(c, p))));
describe('Redis SharePartitionStore', () => shareStoreContract(() => onClient((c, p) => new RedisShareStore(c, p))));
describe('Redis ClusterStore', () => clusterStoreContract(() => onClient((c, p) => new RedisClusterStore(c, new Keys(p)))));
describe('Redis TxnStore', () => txnStoreContract(() => onClient((c, p) => {
  let pid = 0; // the broker passes the log store's producer-id counter
  return new RedisTxnStore(c, p, async () => ++pid);
})));
describe('Redis AclStore', () => aclStoreContract(() => onClient((c, p) => new RedisAclStore(c, p))));
describe('Redis CredentialStore', () => credentialStoreContract(() => onClient((c, p) => new RedisCredentialStore(c, p))));
