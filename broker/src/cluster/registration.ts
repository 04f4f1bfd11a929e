// Claiming a node id at startup. A node id belongs to one live process at a
// time: the registration names the process's instance (`<nodeId>:<random>`)
// and only that instance can refresh it. Like Kafka, which refuses a
// duplicate broker id while the old ZooKeeper/KRaft session is alive, a
// second process with a live node id fails to start; a process restarted
// after a crash waits for its predecessor's registration to expire
// (at most `broker.lease.ms`). Liveness is told apart from a crash by
// watching the holder's expiry: a live broker refreshes it every tick.
import type { BrokerInfo, ClusterStore } from '../storage/cluster-store.js';
import type { Logger } from '../../../common/logger/logger.js';

/** Another live broker process holds the node id. */
export class NodeIdInUseError extends Error {
  constructor(readonly nodeId: number, readonly holder: string, readonly holderExpiresAt: number) {
    super(
      `node.id ${nodeId} is in use: another live broker (instance ${holder}) holds it and keeps renewing its registration ` +
        `(valid until ${new Date(holderExpiresAt).toISOString()}). Stop that broker or give this one a different node.id.`,
    );
    this.name = 'NodeIdInUseError';
  }
}

export interface ClaimOptions {
  self: BrokerInfo;
  instance: string;
  leaseTtlMs: number;
  /** How often to look at the holder's registration while waiting (the leadership tick). */
  pollMs: number;
  logger?: Logger;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Registers `instance` under its node id. Resolves once registered; rejects
 * with NodeIdInUseError as soon as the current holder is seen renewing (or
 * the node id changes hands to yet another instance) while this one waits.
 */
export async function claimNodeId(store: ClusterStore, o: ClaimOptions): Promise<void> {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let seen: { holder: string; expiresAt: number } | null = null;
  for (;;) {
    const t = now();
    const r = await store.registerBroker(o.self, o.instance, t + o.leaseTtlMs, t);
    if (r.ok) {
      if (seen) o.logger?.info('previous registration of this node id expired; registered', { nodeId: o.self.nodeId, previous: seen.holder });
      return;
    }
    if (seen && (r.holder !== seen.holder || r.expiresAt > seen.expiresAt)) throw new NodeIdInUseError(o.self.nodeId, r.holder, r.expiresAt);
    if (!seen) {
      seen = { holder: r.holder, expiresAt: r.expiresAt };
      o.logger?.warn('node id registered by another instance; waiting to see whether it is alive', {
        nodeId: o.self.nodeId, holder: r.holder, expiresInMs: r.expiresAt - t,
      });
    }
    // Look again after one tick (a live holder renews by then), or just after the expiry.
    await sleep(Math.max(10, Math.min(o.pollMs, r.expiresAt - t + 10)));
  }
}
