// A minimal Redis Cluster for the cluster-scale workload: N primaries (any N >= 1,
// which `redis-cli --cluster create`, and so the tests' harness
// test/helpers/redis-cluster.ts, refuse below 3) and R replicas per primary,
// on 127.0.0.1, with the bench's persistence (appendonly yes, appendfsync
// everysec, no RDB snapshots) and a lenient cluster-node-timeout (5 s: the
// bench saturates the machine, and a failover mid-run would measure nothing).
//
// Built by hand, the way `redis-cli --cluster create` does it: every node gets
// a distinct config epoch, primary i gets the slots [i*16384/N, (i+1)*16384/N),
// the nodes MEET the first one, replicas REPLICATE their primary, and the
// cluster counts as up when every node reports cluster_state:ok, knows every
// other node (no handshake), agrees on the slot owners and every replica's
// link to its primary is up.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, HOST, sleep, spawnManaged, waitFor, type ManagedProcess } from '../../test/helpers/procs.js';
import { RespConnection, type Reply } from './resp.js';

export const CLUSTER_SLOTS = 16384;

export interface BenchClusterNode {
  port: number;
  busPort: number;
  dir: string;
  role: 'primary' | 'replica';
  /** Index of its primary in `primaries` (a primary: its own index). */
  shard: number;
  id: string;
  proc: ManagedProcess;
}

export interface BenchCluster {
  flavor: 'redis' | 'valkey';
  primaries: BenchClusterNode[];
  replicas: BenchClusterNode[];
  /** Comma-separated redis://127.0.0.1:<port> of the primaries: the broker's --redis. */
  seeds: string;
  /** One command to one node; rejects on an error reply. */
  command(node: BenchClusterNode, args: Array<string | number>): Promise<Reply>;
  stop(): Promise<void>;
}

export interface StartBenchClusterOptions {
  primaries: number;
  replicasPerPrimary?: number;
  flavor?: 'redis' | 'valkey';
  /** cluster-node-timeout (ms); default 5000 (no failovers wanted while the box is saturated). */
  nodeTimeoutMs?: number;
  timeoutMs?: number;
}

async function call(port: number, args: Array<string | number>): Promise<Reply> {
  const c = await RespConnection.connect(port);
  try {
    return await c.call(args);
  } finally {
    c.close();
  }
}

const text = (r: Reply): string => (Buffer.isBuffer(r) ? r.toString('utf8') : String(r));

export async function startBenchCluster(o: StartBenchClusterOptions): Promise<BenchCluster> {
  const flavor = o.flavor ?? 'redis';
  const nPrimaries = o.primaries;
  const perPrimary = o.replicasPerPrimary ?? 0;
  if (!Number.isInteger(nPrimaries) || nPrimaries < 1) throw new Error(`primaries must be >= 1, got ${nPrimaries}`);
  const timeoutMs = o.timeoutMs ?? 60_000;
  const nodes: BenchClusterNode[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(nodes.map((n) => n.proc.stop(15_000)));
    if (process.env.RUNNEL_TEST_KEEP !== '1') for (const n of nodes) fs.rmSync(n.dir, { recursive: true, force: true });
  };
  try {
    const start = async (role: BenchClusterNode['role'], shard: number): Promise<BenchClusterNode> => {
      const port = await freePort();
      const busPort = await freePort();
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), `runnel-bench-cluster-${port}-`));
      const proc = spawnManaged(`${flavor}-cluster-${port}`, flavor === 'valkey' ? 'valkey-server' : 'redis-server', [
        '--port', String(port),
        '--bind', HOST,
        '--dir', dir,
        '--save', '',
        '--appendonly', 'yes',
        '--appendfsync', 'everysec',
        '--daemonize', 'no',
        '--logfile', '',
        '--protected-mode', 'no',
        '--cluster-enabled', 'yes',
        '--cluster-config-file', 'nodes.conf',
        '--cluster-port', String(busPort),
        // A node that never MEETs another (a 1-primary cluster) does not learn
        // its own address and advertises an empty IP in CLUSTER SLOTS.
        '--cluster-announce-ip', HOST,
        '--cluster-node-timeout', String(o.nodeTimeoutMs ?? 5000),
      ]);
      const node: BenchClusterNode = { port, busPort, dir, role, shard, id: '', proc };
      nodes.push(node);
      await waitFor(`${flavor} PONG on ${port}`, async () => text(await call(port, ['PING'])) === 'PONG', { proc, timeoutMs, intervalMs: 50 });
      node.id = text(await call(port, ['CLUSTER', 'MYID']));
      return node;
    };
    const primaries: BenchClusterNode[] = [];
    for (let i = 0; i < nPrimaries; i++) primaries.push(await start('primary', i));
    const replicas: BenchClusterNode[] = [];
    for (let i = 0; i < nPrimaries; i++) for (let r = 0; r < perPrimary; r++) replicas.push(await start('replica', i));

    // Distinct config epochs (as redis-cli does), slots, then everyone meets the first node.
    for (const [i, n] of nodes.entries()) await call(n.port, ['CLUSTER', 'SET-CONFIG-EPOCH', i + 1]);
    for (const [i, p] of primaries.entries()) {
      const from = Math.floor((i * CLUSTER_SLOTS) / nPrimaries);
      const to = Math.floor(((i + 1) * CLUSTER_SLOTS) / nPrimaries) - 1;
      await call(p.port, ['CLUSTER', 'ADDSLOTSRANGE', from, to]);
    }
    const first = nodes[0]!;
    for (const n of nodes.slice(1)) await call(n.port, ['CLUSTER', 'MEET', HOST, first.port, first.busPort]);

    // Every node knows every other one (handshakes done) before replicas attach.
    await waitFor(
      'cluster nodes meet',
      async () => {
        for (const n of nodes) {
          const lines = text(await call(n.port, ['CLUSTER', 'NODES'])).trim().split('\n');
          if (lines.length !== nodes.length || lines.some((l) => /handshake|noaddr|fail/.test(l.split(' ')[2] ?? ''))) return false;
        }
        return true;
      },
      { timeoutMs, intervalMs: 100 },
    );
    for (const r of replicas) await call(r.port, ['CLUSTER', 'REPLICATE', primaries[r.shard]!.id]);

    const owners = new Map(primaries.map((p, i) => [p.id, i]));
    await waitFor(
      `cluster of ${nPrimaries} primaries + ${replicas.length} replicas healthy`,
      async () => {
        for (const n of nodes) {
          if (!/cluster_state:ok/.test(text(await call(n.port, ['CLUSTER', 'INFO'])))) return false;
          // Slot owners as this node sees them: the node ids of CLUSTER NODES lines with slot ranges.
          const lines = text(await call(n.port, ['CLUSTER', 'NODES'])).trim().split('\n');
          for (const l of lines) {
            const f = l.split(' ');
            const flags = f[2] ?? '';
            if (/handshake|fail/.test(flags)) return false;
            const ranges = f.slice(8).filter((x) => /^\d/.test(x));
            if (ranges.length && !owners.has(f[0]!)) return false;
            if (!ranges.length && owners.has(f[0]!) && flags.includes('master')) return false;
          }
          if (n.role === 'replica' && !/master_link_status:up/.test(text(await call(n.port, ['INFO', 'replication'])))) return false;
        }
        return true;
      },
      { timeoutMs, intervalMs: 100 },
    );
    // A new cluster can still flip config epochs for a moment; let the gossip settle.
    await sleep(500);
    return {
      flavor,
      primaries,
      replicas,
      seeds: primaries.map((p) => `redis://${HOST}:${p.port}`).join(','),
      command: (node, args) => call(node.port, args),
      stop,
    };
  } catch (e) {
    await stop().catch(() => undefined);
    throw e;
  }
}
