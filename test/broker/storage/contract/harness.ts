// What a storage contract suite is given: a factory that opens a fresh,
// empty store (its own Redis key prefix, or a new in-memory object) and a way
// to close it. The same describe-blocks run over the in-memory stores (unit
// project: test/broker/storage/memory-contract.test.ts) and the Redis stores
// (integration project: test/integration/storage/redis-contract.test.ts), so
// the in-memory stores the handler tests use keep the Redis stores' behaviour.
import { afterEach, beforeEach } from 'vitest';

export interface Opened<S> {
  store: S;
  close(): Promise<void>;
  /** Lets `ms` of the store's time pass (default: real time, for stores whose clock is the server's). */
  wait?(ms: number): Promise<void>;
}

export type Factory<S> = () => Promise<Opened<S>>;

/** Opens a store for each test and closes it after. */
export function perTest<S>(open: Factory<S>): () => S {
  const opened = perTestOpened(open);
  return () => opened().store;
}

/** As perTest, with the whole Opened (its `wait`). */
export function perTestOpened<S>(open: Factory<S>): () => Opened<S> {
  let cur: Opened<S> | null = null;
  beforeEach(async () => { cur = await open(); });
  afterEach(async () => { await cur?.close(); cur = null; });
  return () => {
    if (!cur) throw new Error('store not open');
    return cur;
  };
}
