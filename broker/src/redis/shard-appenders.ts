// The zero-copy append connections: one to a single Redis node, or in cluster
// mode one per primary, chosen by the slot of the partition's hash tag. A
// partition's fenced append (MULTI, EVALSHA, XADD, EXEC) and the WAIT/WAITAOF
// that covers it go over the connection to the primary owning its slot, so
// each step runs on the owning shard and nothing is shared across shards.
//
// The slot map is ioredis's (`Cluster.slots`, refreshed every second and on
// MOVED). An append that meets a topology change (MOVED, ASK, TRYAGAIN,
// CLUSTERDOWN, a dead primary) fails retriably and asks for a refresh; the
// partition reloads and the client retries against the new owner, where the
// fence (stored log end and epoch) keeps the log dense.
import type { Cluster } from 'ioredis';
import type { ConnectionOptions } from 'node:tls';
import { nodeKey, type RedisEndpoints } from '../../../common/redis/endpoints.js';
import { AppendConnection, type AppendTarget } from './append-connection.js';

/** Error replies that mean the slot map this process uses is out of date. */
export const isTopologyError = (e: unknown): boolean =>
  e instanceof Error && /^(MOVED|ASK|TRYAGAIN|CLUSTERDOWN|EXECABORT|READONLY|MASTERDOWN|LOADING)\b|connection closed|ECONNREFUSED|ECONNRESET|no reply from redis/i.test(e.message);

export class ShardAppenders {
  private readonly byNode = new Map<string, AppendConnection>();
  private readonly single: AppendConnection | null;

  constructor(
    private readonly endpoints: RedisEndpoints,
    private readonly cluster: Cluster | null,
    private readonly tlsOptions: ConnectionOptions | undefined,
    private readonly setup: string[][],
  ) {
    const seed = endpoints.seeds[0]!;
    this.single = cluster ? null : new AppendConnection(this.target(seed.host, seed.port), undefined, setup);
  }

  private target(host: string, port: number): AppendTarget {
    const t: AppendTarget = { host, port, username: this.endpoints.username, password: this.endpoints.password };
    if (!this.cluster && this.endpoints.db) t.db = this.endpoints.db;
    if (this.endpoints.tls) {
      t.tls = true;
      t.tlsOptions = this.tlsOptions ?? {};
    }
    return t;
  }

  /** The primary owning `slot` now ("host:port"); null while the map has no owner (cluster not ready). */
  ownerOf(slot: number): string | null {
    if (!this.cluster) return nodeKey(this.endpoints.seeds[0]!);
    return this.cluster.slots[slot]?.[0] ?? null;
  }

  /** The append connection for a slot (single node: the one connection). */
  forSlot(slot: number): AppendConnection {
    if (this.single) return this.single;
    const node = this.ownerOf(slot);
    if (!node) throw new Error(`CLUSTERDOWN no primary known for slot ${slot}`);
    let c = this.byNode.get(node);
    if (!c) {
      const at = node.lastIndexOf(':');
      c = new AppendConnection(this.target(node.slice(0, at), Number(node.slice(at + 1))), undefined, this.setup);
      this.byNode.set(node, c);
    }
    return c;
  }

  /** After a topology error: refresh the slot map and drop connections to nodes that no longer own slots. */
  refresh(): void {
    const cluster = this.cluster;
    if (!cluster) return;
    cluster.refreshSlotsCache(() => {
      const owners = new Set<string>();
      for (const s of cluster.slots) if (s?.[0]) owners.add(s[0]);
      for (const [node, c] of this.byNode) {
        if (!owners.has(node)) {
          c.close();
          this.byNode.delete(node);
        }
      }
    });
  }

  /** Open connections, by node (for tests and the placement report). */
  nodes(): string[] {
    return this.single ? [nodeKey(this.endpoints.seeds[0]!)] : [...this.byNode.keys()];
  }

  close(): void {
    this.single?.close();
    for (const c of this.byNode.values()) c.close();
    this.byNode.clear();
  }
}
