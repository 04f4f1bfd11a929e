// Claiming a node id: refused while another live process renews it, granted
// once a crashed predecessor's registration has expired.
import { describe, expect, it } from 'vitest';
import { claimNodeId, NodeIdInUseError } from '../../../broker/src/cluster/registration.js';
import { MemoryClusterStore } from './memory-cluster-store.js';

const self = { nodeId: 1, host: 'h', port: 9092, rack: null };
const TTL = 3000;
const TICK = 500;

/** Simulated time; `onSleep` runs what other processes do while the claimant waits. */
function clock(onSleep: (now: number) => void = () => undefined) {
  let t = 1_000_000;
  return {
    now: () => t,
    sleep: async (ms: number) => { t += ms; onSleep(t); },
  };
}

describe('claimNodeId', () => {
  it('registers a free node id at once', async () => {
    const store = new MemoryClusterStore();
    const c = clock();
    await claimNodeId(store, { self, instance: '1:new', leaseTtlMs: TTL, pollMs: TICK, ...c });
    expect(store.brokers.get(1)).toMatchObject({ instance: '1:new', expiresAt: c.now() + TTL });
  });

  it('fails with a clear error when the holder is alive (keeps renewing), without touching its registration', async () => {
    const store = new MemoryClusterStore();
    const c = clock((now) => {
      // the live holder renews every tick
      store.brokers.set(1, { info: self, instance: '1:live', expiresAt: now + TTL });
    });
    store.brokers.set(1, { info: self, instance: '1:live', expiresAt: c.now() + TTL });
    const err = await claimNodeId(store, { self, instance: '1:dup', leaseTtlMs: TTL, pollMs: TICK, ...c }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeIdInUseError);
    expect(String((err as Error).message)).toMatch(/node\.id 1 is in use: another live broker \(instance 1:live\)/);
    expect(store.brokers.get(1)?.instance).toBe('1:live');
    expect(c.now() - 1_000_000).toBeLessThanOrEqual(TICK); // decided within one tick, not after the whole lease
  });

  it('waits for a crashed predecessor\'s registration to expire, then registers', async () => {
    const store = new MemoryClusterStore();
    const c = clock();
    const start = c.now();
    store.brokers.set(1, { info: self, instance: '1:crashed', expiresAt: start + 2000 }); // last renewed 1 s before the crash
    await claimNodeId(store, { self, instance: '1:restarted', leaseTtlMs: TTL, pollMs: TICK, ...c });
    expect(store.brokers.get(1)?.instance).toBe('1:restarted');
    expect(c.now()).toBeGreaterThanOrEqual(start + 2000); // not before it expired
    expect(c.now()).toBeLessThanOrEqual(start + 2000 + TICK);
  });

  it('fails when the node id changes hands to a third process while waiting', async () => {
    const store = new MemoryClusterStore();
    let handedOver = false;
    const c = clock((now) => {
      if (!handedOver) store.brokers.set(1, { info: self, instance: '1:third', expiresAt: now + TTL - 100 });
      handedOver = true;
    });
    store.brokers.set(1, { info: self, instance: '1:old', expiresAt: c.now() + TTL });
    await expect(claimNodeId(store, { self, instance: '1:me', leaseTtlMs: TTL, pollMs: TICK, ...c })).rejects.toThrow(/instance 1:third/);
  });
});
