// A real Redis Cluster (redis-server 7 or valkey-server 8) on 127.0.0.1 for tests.
//
//   const c = await startRedisCluster();          // 3 primaries + 3 replicas, flavor from RUNNEL_TEST_BACKEND
//   c.seeds / c.url -> 'redis://127.0.0.1:P1,redis://127.0.0.1:P2,redis://127.0.0.1:P3'
//   const owner = await c.slotOwner(c.keySlot('rn:p:{t/0}:log'));
//   await owner.kill();                            // SIGKILL a primary
//   const promoted = await c.waitPromoted(owner);  // its replica took over, cluster_state:ok again
//   await owner.restart();  await c.waitHealthy(); // rejoins as a replica of `promoted`
//   await c.reshard({ from, to, slots: 100 });  await c.addPrimary();  await c.rebalance({ useEmptyMasters: true });
//   await c.stop();                                // final; removes the temp dirs
//
// Every node: cluster-enabled, nodes.conf in its own dir, cluster-node-timeout
// 1000 ms and cluster-replica-validity-factor 0 (a replica always fails over,
// fast), no RDB snapshots, AOF with appendfsync everysec. The cluster bus port
// is a separately chosen free port (--cluster-port), not port+10000.
//
// node.command() / cluster.clusterCommand() speak RESP directly and return the
// complete raw RESP reply (like RedisServer.command(), but arrays are read to
// the end); clusterCommand() follows -MOVED / -ASK. cluster.cli() runs
// redis-cli / valkey-cli for anything else (its `--cluster ...` commands too).
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { freePort, HOST, runCommand, sleep, spawnManaged, waitFor, type ManagedProcess, type RunResult } from './procs.js';
import type { RedisFlavor } from './redis.js';

// cluster-key-slot (an ioredis dependency) is CommonJS without typings:
// module.exports = generate(key), module.exports.generateMulti(keys).
const requireCjs = createRequire(import.meta.url);
const calculateSlot = requireCjs('cluster-key-slot') as ((key: string | Buffer) => number) & {
  generateMulti(keys: Array<string | Buffer>): number;
};

export const CLUSTER_SLOTS = 16384;

export interface StartRedisClusterOptions {
  /** Default: from RUNNEL_TEST_BACKEND (redis / valkey, with or without -cluster). */
  flavor?: RedisFlavor;
  /** Default 3. */
  primaries?: number;
  /** Default 1. */
  replicasPerPrimary?: number;
  /** Extra server args for every node, e.g. ['--maxmemory', '1gb']. */
  args?: string[];
  /** Default true. */
  appendonly?: boolean;
  /** Default 'everysec'. */
  appendfsync?: 'always' | 'everysec' | 'no';
  /** cluster-node-timeout; default 1000 ms. */
  nodeTimeoutMs?: number;
  /** Whole startup (nodes up + create + healthy); default 60 s. */
  startTimeoutMs?: number;
}

export interface ClusterNode {
  host: string;
  port: number;
  /** Cluster bus port (--cluster-port). */
  busPort: number;
  dir: string;
  /** redis://127.0.0.1:<port> */
  url: string;
  /** Current server process (changes on restart). */
  proc(): ManagedProcess;
  /** Process running (paused counts as running). */
  running(): boolean;
  paused(): boolean;
  /** SIGKILL (crash). restart() brings it back. */
  kill(): Promise<void>;
  /** Start again on the same port, dir, nodes.conf and AOF (graceful stop first if it still runs); waits for PONG. */
  restart(): Promise<void>;
  /** Graceful shutdown (SIGTERM, SIGKILL after 15 s). restart() brings it back. */
  stop(): Promise<void>;
  /** SIGSTOP / SIGCONT. */
  pause(): void;
  resume(): void;
  /**
   * One command to this node only (an inline line such as 'CLUSTER NODES',
   * or an argument array); returns the complete raw RESP reply.
   */
  command(line: string | string[], timeoutMs?: number): Promise<string>;
}

export interface RedisCluster {
  flavor: RedisFlavor;
  /** Every node ever started (including the ones addPrimary()/addReplica() added, and dead ones). */
  nodes: ClusterNode[];
  /** Comma-separated redis://127.0.0.1:<port> of the initial primaries (the broker's --redis). */
  seeds: string;
  /** Same as seeds, so a cluster can stand in for RedisServer.url. */
  url: string;
  /** redis-cli or valkey-cli. */
  cliBinary: string;
  /** Running (and not paused) nodes that are primaries, from CLUSTER NODES of a live node. */
  primaries(): Promise<ClusterNode[]>;
  /** Running (and not paused) nodes that are replicas, from CLUSTER NODES of a live node. */
  replicas(): Promise<ClusterNode[]>;
  /** The primary serving `slot`, from CLUSTER NODES of a live node. */
  slotOwner(slot: number): Promise<ClusterNode>;
  /** Slots served by `node` (ascending), from CLUSTER NODES of a live node. */
  slotsOf(node: ClusterNode): Promise<number[]>;
  /** The primary `replica` replicates, from CLUSTER NODES of a live node; null for a primary. */
  primaryOf(replica: ClusterNode): Promise<ClusterNode | null>;
  /** CRC16 hash slot of a key (hash tags honoured). */
  keySlot(key: string | Buffer): number;
  /** CLUSTER MYID (cached; read from nodes.conf when the node is down). */
  nodeId(node: ClusterNode): Promise<string>;
  /** The ClusterNode with this node id (throws if unknown). */
  nodeById(id: string): Promise<ClusterNode>;
  /**
   * Until every running, unpaused node reports cluster_state:ok, all of them
   * agree on the slot map, no slot is migrating/importing, every such node is
   * known (and not failing) in every view, every replica's master link is up,
   * and (when no node is paused) `cli --cluster check` exits 0. Default 30 s.
   */
  waitHealthy(timeoutMs?: number): Promise<void>;
  /**
   * After SIGKILL of a primary: until one of its replicas serves all its
   * slots and the cluster is healthy again. Returns the promoted node.
   * Default 30 s.
   */
  waitPromoted(killedPrimary: ClusterNode, timeoutMs?: number): Promise<ClusterNode>;
  /** `cli --cluster reshard` (moves keys too), then waitHealthy. */
  reshard(opts: { from: ClusterNode; to: ClusterNode; slots: number; timeoutMs?: number }): Promise<void>;
  /** `cli --cluster rebalance` (optionally --cluster-use-empty-masters), then waitHealthy. */
  rebalance(opts?: { useEmptyMasters?: boolean; threshold?: number; timeoutMs?: number }): Promise<void>;
  /**
   * Starts a new empty node, `cli --cluster add-node`, waits until every node
   * knows it and it reports cluster_state:ok (a fresh primary waits ~2 s
   * before that). No slots yet.
   */
  addPrimary(): Promise<ClusterNode>;
  /** Starts a new node and adds it as a replica of `primary`; waits until its master link is up. */
  addReplica(primary: ClusterNode): Promise<ClusterNode>;
  /**
   * One command routed like a cluster client (starts at a live node, follows
   * -MOVED and -ASK, retries -TRYAGAIN briefly); returns the raw RESP reply.
   */
  clusterCommand(line: string | string[], timeoutMs?: number): Promise<string>;
  /**
   * Runs the CLI: `<cli> -h 127.0.0.1 -p <node> [-c] ...args` (node: default
   * a live node; follow: add -c). Never throws for a non-zero exit.
   */
  cli(args: string[], opts?: { node?: ClusterNode; follow?: boolean; timeoutMs?: number }): Promise<RunResult>;
  /** SIGKILL every node. */
  killAll(): Promise<void>;
  /** Graceful stop of the running nodes, start all again (same ports/dirs), waitHealthy. */
  restartAll(timeoutMs?: number): Promise<void>;
  /** Stops every node and removes the temp dirs (unless RUNNEL_TEST_KEEP=1). Final; tolerant of dead nodes. */
  stop(): Promise<void>;
}

// ------------------------------------------------------------------- RESP ---

/** End offset (exclusive) of the RESP reply starting at `pos`, or -1 if incomplete. */
function respEnd(buf: Buffer, pos: number): number {
  if (pos >= buf.length) return -1;
  const crlf = buf.indexOf('\r\n', pos, 'latin1');
  if (crlf < 0) return -1;
  const type = String.fromCharCode(buf[pos]!);
  const head = buf.toString('latin1', pos + 1, crlf);
  switch (type) {
    case '$':
    case '!':
    case '=': {
      const len = Number(head);
      if (len < 0) return crlf + 2;
      const end = crlf + 2 + len + 2;
      return buf.length >= end ? end : -1;
    }
    case '*':
    case '~':
    case '>':
    case '%': {
      let n = Number(head);
      if (n < 0) return crlf + 2;
      if (type === '%') n *= 2;
      let p = crlf + 2;
      for (let i = 0; i < n; i++) {
        p = respEnd(buf, p);
        if (p < 0) return -1;
      }
      return p;
    }
    default:
      return crlf + 2; // + - : _ , # ( and anything line-shaped
  }
}

function encodeCommand(line: string | string[]): Buffer {
  if (typeof line === 'string') return Buffer.from(`${line}\r\n`, 'utf8');
  const parts: Buffer[] = [Buffer.from(`*${line.length}\r\n`)];
  for (const a of line) {
    const b = Buffer.from(a, 'utf8');
    parts.push(Buffer.from(`$${b.length}\r\n`), b, Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}

/**
 * Sends `prefix` commands (their replies are skipped) then `line`; returns
 * the complete raw RESP reply to `line`.
 */
export function respCommand(
  port: number,
  line: string | string[],
  opts: { host?: string; timeoutMs?: number; prefix?: Array<string | string[]> } = {},
): Promise<string> {
  const host = opts.host ?? HOST;
  const timeoutMs = opts.timeoutMs ?? 5000;
  const prefix = opts.prefix ?? [];
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host, port });
    let buf: Buffer = Buffer.alloc(0);
    const finish = (err: Error | null, value?: string): void => {
      sock.removeAllListeners();
      sock.destroy();
      if (err) reject(err);
      else resolve(value ?? '');
    };
    const what = typeof line === 'string' ? line : line.join(' ');
    sock.setTimeout(timeoutMs, () => finish(new Error(`redis ${host}:${port} timed out on '${what}'`)));
    sock.once('error', (e) => finish(e));
    sock.on('connect', () => sock.write(Buffer.concat([...prefix.map(encodeCommand), encodeCommand(line)])));
    sock.on('data', (d: Buffer) => {
      buf = buf.length ? Buffer.concat([buf, d]) : d;
      let p = 0;
      for (let i = 0; i < prefix.length; i++) {
        p = respEnd(buf, p);
        if (p < 0) return;
      }
      const end = respEnd(buf, p);
      if (end < 0) return;
      finish(null, buf.toString('utf8', p, end));
    });
  });
}

/** Text of a bulk-string reply; throws on an error reply. */
function bulkText(raw: string, what: string): string {
  if (raw.startsWith('-')) throw new Error(`${what}: ${raw.trim()}`);
  if (raw.startsWith('$')) {
    const nl = raw.indexOf('\r\n');
    return raw.slice(nl + 2, raw.length - 2);
  }
  if (raw.startsWith('+')) return raw.slice(1, raw.length - 2);
  throw new Error(`${what}: unexpected reply ${JSON.stringify(raw.slice(0, 200))}`);
}

// ---------------------------------------------------------- CLUSTER NODES ---

interface NodeLine {
  id: string;
  port: number;
  flags: Set<string>;
  masterId: string | null;
  linkState: string;
  /** [start, end] inclusive. */
  ranges: Array<[number, number]>;
  /** Migrating/importing markers ([slot->-id] / [slot-<-id]). */
  openSlots: string[];
}

/** Parses CLUSTER NODES output (or a nodes.conf; its `vars` line is skipped). */
function parseNodes(text: string): NodeLine[] {
  const out: NodeLine[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('vars ')) continue;
    const f = line.split(' ');
    if (f.length < 8) continue;
    // ip:port@cport[,hostname]
    const addr = f[1]!.split(',')[0]!.split('@')[0]!;
    const port = Number(addr.slice(addr.lastIndexOf(':') + 1));
    const ranges: Array<[number, number]> = [];
    const openSlots: string[] = [];
    for (const s of f.slice(8)) {
      if (s.startsWith('[')) {
        openSlots.push(s);
        continue;
      }
      const dash = s.indexOf('-');
      if (dash < 0) ranges.push([Number(s), Number(s)]);
      else ranges.push([Number(s.slice(0, dash)), Number(s.slice(dash + 1))]);
    }
    out.push({
      id: f[0]!,
      port,
      flags: new Set(f[2]!.split(',')),
      masterId: f[3] === '-' ? null : f[3]!,
      linkState: f[7]!,
      ranges,
      openSlots,
    });
  }
  return out;
}

// valkey 8 still says master/slave in CLUSTER NODES; accept 'primary' should a later version switch.
const isMaster = (n: NodeLine): boolean => n.flags.has('master') || n.flags.has('primary');
const isFailing = (n: NodeLine): boolean =>
  n.flags.has('fail') || n.flags.has('fail?') || n.flags.has('handshake') || n.flags.has('noaddr');
const ownsSlot = (n: NodeLine, slot: number): boolean => n.ranges.some(([a, b]) => slot >= a && slot <= b);
const slotCount = (n: NodeLine): number => n.ranges.reduce((s, [a, b]) => s + (b - a + 1), 0);

/** Canonical slot map of a view: 'a-b=id' for every served range, sorted. */
function slotSignature(view: NodeLine[]): string {
  const parts: string[] = [];
  for (const n of view) if (isMaster(n)) for (const [a, b] of n.ranges) parts.push(`${a}-${b}=${n.id}`);
  return parts.sort((x, y) => Number(x.split('-')[0]) - Number(y.split('-')[0])).join(' ');
}

// ------------------------------------------------------------------ nodes ---

function serverBinary(flavor: RedisFlavor): string {
  return flavor === 'valkey' ? 'valkey-server' : 'redis-server';
}

function cliBinaryFor(flavor: RedisFlavor): string {
  return flavor === 'valkey' ? 'valkey-cli' : 'redis-cli';
}

function defaultFlavor(): RedisFlavor {
  const v = (process.env.RUNNEL_TEST_BACKEND ?? 'redis').trim().toLowerCase();
  return v.startsWith('valkey') ? 'valkey' : 'redis';
}

class Node implements ClusterNode {
  readonly host = HOST;
  readonly url: string;
  private p!: ManagedProcess;
  private isPaused = false;
  /** Set by cluster stop(): no more restarts. */
  retired = false;
  id: string | null = null;

  constructor(
    readonly flavor: RedisFlavor,
    readonly port: number,
    readonly busPort: number,
    readonly dir: string,
    private readonly args: string[],
    private readonly startTimeoutMs: number,
  ) {
    this.url = `redis://${HOST}:${port}`;
  }

  async start(): Promise<void> {
    if (this.retired) throw new Error(`node ${this.port}: start after cluster stop()`);
    fs.mkdirSync(this.dir, { recursive: true });
    this.isPaused = false;
    this.p = spawnManaged(`${this.flavor}-cluster-${this.port}`, serverBinary(this.flavor), this.args);
    const proc = this.p;
    // PING answers -LOADING while the AOF is replayed; wait for +PONG.
    await waitFor(`${this.flavor} cluster node PONG on ${this.port}`, async () => (await respCommand(this.port, 'PING', { timeoutMs: 1000 })).startsWith('+PONG'), {
      proc,
      timeoutMs: this.startTimeoutMs,
      intervalMs: 20,
    });
  }

  proc(): ManagedProcess {
    return this.p;
  }
  running(): boolean {
    return this.p !== undefined && this.p.running();
  }
  paused(): boolean {
    return this.running() && this.isPaused;
  }
  /** Running and able to answer. */
  live(): boolean {
    return this.running() && !this.isPaused;
  }
  async kill(): Promise<void> {
    if (!this.p) return;
    await this.p.kill(); // SIGKILL works on a stopped process too
    this.isPaused = false;
  }
  async stop(): Promise<void> {
    if (!this.p || !this.p.running()) return;
    if (this.isPaused) this.resume();
    await this.p.stop(15_000);
  }
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }
  pause(): void {
    if (!this.running()) throw new Error(`node ${this.port} is not running`);
    process.kill(this.p.pid, 'SIGSTOP');
    this.isPaused = true;
  }
  resume(): void {
    if (!this.running()) return;
    process.kill(this.p.pid, 'SIGCONT');
    this.isPaused = false;
  }
  command(line: string | string[], timeoutMs = 5000): Promise<string> {
    return respCommand(this.port, line, { timeoutMs });
  }
}

// ---------------------------------------------------------------- cluster ---

export async function startRedisCluster(opts: StartRedisClusterOptions = {}): Promise<RedisCluster> {
  const flavor = opts.flavor ?? defaultFlavor();
  const nPrimaries = opts.primaries ?? 3;
  const nReplicas = opts.replicasPerPrimary ?? 1;
  if (nPrimaries < 3) throw new Error('startRedisCluster: a Redis Cluster needs at least 3 primaries');
  const startTimeoutMs = opts.startTimeoutMs ?? 60_000;
  const deadline = Date.now() + startTimeoutMs;
  const cli = cliBinaryFor(flavor);
  const baseDir = fs.mkdtempSync(path.join(os.tmpdir(), `runnel-${flavor}-cluster-`));
  const nodes: Node[] = [];
  const ids = new Map<Node, string>();
  let stopped = false;

  const newNode = async (): Promise<Node> => {
    const port = await freePort();
    const busPort = await freePort();
    const dir = path.join(baseDir, `node-${port}`);
    const args = [
      '--cluster-enabled', 'yes',
      '--cluster-config-file', 'nodes.conf',
      '--cluster-node-timeout', String(opts.nodeTimeoutMs ?? 1000),
      '--cluster-replica-validity-factor', '0',
      '--cluster-port', String(busPort),
      '--port', String(port),
      '--bind', HOST,
      '--dir', dir,
      '--save', '',
      '--appendonly', (opts.appendonly ?? true) ? 'yes' : 'no',
      '--appendfsync', opts.appendfsync ?? 'everysec',
      // Replicas sync at once (the default waits 5 s for more replicas to join a diskless transfer).
      '--repl-diskless-sync-delay', '0',
      '--protected-mode', 'no',
      '--daemonize', 'no',
      '--logfile', '',
      ...(opts.args ?? []),
    ];
    const node = new Node(flavor, port, busPort, dir, args, startTimeoutMs);
    nodes.push(node);
    return node;
  };

  const liveNodes = (): Node[] => nodes.filter((n) => n.live());
  const anyLive = (): Node => {
    const n = liveNodes()[0];
    if (!n) throw new Error('redis cluster: no running node');
    return n;
  };
  const byPort = (port: number): Node | undefined => nodes.find((n) => n.port === port);
  const asNode = (n: ClusterNode): Node => {
    const found = nodes.find((x) => x === n || x.port === n.port);
    if (!found) throw new Error(`node ${n.port} is not part of this cluster`);
    return found;
  };

  const view = async (node: Node): Promise<NodeLine[]> => parseNodes(bulkText(await node.command('CLUSTER NODES'), `CLUSTER NODES on ${node.port}`));
  /** A view from a live node (tries each until one answers). */
  const anyView = async (): Promise<NodeLine[]> => {
    let last: unknown;
    for (const n of liveNodes()) {
      try {
        return await view(n);
      } catch (err) {
        last = err;
      }
    }
    throw new Error(`redis cluster: no live node answered CLUSTER NODES${last ? ` (${String(last)})` : ''}`);
  };

  const nodeId = async (n: ClusterNode): Promise<string> => {
    const node = asNode(n);
    const cached = ids.get(node);
    if (cached) return cached;
    let id: string | undefined;
    if (node.live()) {
      id = bulkText(await node.command('CLUSTER MYID'), `CLUSTER MYID on ${node.port}`);
    } else {
      const conf = fs.readFileSync(path.join(node.dir, 'nodes.conf'), 'utf8');
      id = parseNodes(conf).find((l) => l.flags.has('myself'))?.id;
      if (!id) throw new Error(`node ${node.port}: no 'myself' line in nodes.conf`);
    }
    ids.set(node, id);
    return id;
  };
  const nodeById = async (id: string): Promise<Node> => {
    for (const n of nodes) if ((await nodeId(n).catch(() => null)) === id) return n;
    throw new Error(`redis cluster: unknown node id ${id}`);
  };
  const lineToNode = (l: NodeLine): Node | undefined => byPort(l.port);

  const cliRun = (args: string[], o: { node?: ClusterNode; follow?: boolean; timeoutMs?: number } = {}): Promise<RunResult> => {
    const node = o.node ? asNode(o.node) : anyLive();
    return runCommand(cli, ['-h', HOST, '-p', String(node.port), ...(o.follow ? ['-c'] : []), ...args], { timeoutMs: o.timeoutMs ?? 30_000 });
  };
  /** `<cli> --cluster <sub> ...`; throws with the output on a non-zero exit. */
  const clusterTool = async (sub: string, args: string[], timeoutMs: number): Promise<RunResult> => {
    const argv = ['--cluster', sub, ...args];
    const res = await runCommand(cli, argv, { timeoutMs, logName: `${cli}-cluster-${sub}` });
    if (res.code !== 0 || res.timedOut) {
      // The cluster manager reports most errors on stdout.
      throw new Error(
        `${cli} ${argv.join(' ')} ${res.timedOut ? `timed out after ${timeoutMs} ms` : `exited ${res.code}`}:\n` +
          `${res.stderr.trim()}\n${res.stdout.slice(-4000).trim()}`.replace(/\x1b\[[0-9;]*m/g, ''),
      );
    }
    return res;
  };

  /** One health round; returns null when healthy, else the reason. */
  const healthProblem = async (): Promise<string | null> => {
    const live = liveNodes();
    if (live.length === 0) return 'no running node';
    const liveIds = await Promise.all(live.map((n) => nodeId(n)));
    const views = await Promise.all(
      live.map(async (n) => {
        const [info, nodesText] = await Promise.all([n.command('CLUSTER INFO', 2000), n.command('CLUSTER NODES', 2000)]);
        return { node: n, info: bulkText(info, `CLUSTER INFO on ${n.port}`), lines: parseNodes(bulkText(nodesText, `CLUSTER NODES on ${n.port}`)) };
      }),
    );
    let signature: string | null = null;
    // Every view must agree on every live node's role (a restarted primary is
    // seen as a master by some nodes until gossip says it became a replica).
    const roleOf = (v: (typeof views)[number], id: string): string => { const l = v.lines.find((x) => x.id === id); return l ? (isMaster(l) ? 'master' : 'replica') : '?'; };
    for (const id of liveIds) {
      const roles = new Set(views.map((v) => roleOf(v, id)));
      if (roles.size > 1) return `nodes disagree on the role of ${id}: ${[...roles].join(' / ')}`;
    }
    for (const v of views) {
      if (!/^cluster_state:ok\r?$/m.test(v.info)) return `${v.node.port}: ${/cluster_state:\w+/.exec(v.info)?.[0] ?? 'no cluster_state'}`;
      const sig = slotSignature(v.lines);
      if (signature === null) signature = sig;
      else if (sig !== signature) return `${v.node.port}: slot map differs from ${views[0]!.node.port}`;
      const open = v.lines.flatMap((l) => l.openSlots);
      if (open.length) return `${v.node.port}: open slots ${open.join(' ')}`;
      for (const id of liveIds) {
        const l = v.lines.find((x) => x.id === id);
        if (!l) return `${v.node.port}: does not know ${id}`;
        if (isFailing(l)) return `${v.node.port}: sees ${l.port} as ${[...l.flags].join(',')}`;
      }
      const me = v.lines.find((l) => l.flags.has('myself'));
      if (me && !isMaster(me)) {
        const repl = bulkText(await v.node.command('INFO replication', 2000), `INFO replication on ${v.node.port}`);
        if (!/^master_link_status:up\r?$/m.test(repl)) return `${v.node.port}: replica link not up`;
      }
    }
    if (nodes.some((n) => n.paused())) return null; // --cluster check would hang on a SIGSTOPped node
    const res = await runCommand(cli, ['--cluster', 'check', `${HOST}:${live[0]!.port}`], { timeoutMs: 10_000 });
    if (res.code !== 0) return `${cli} --cluster check exited ${res.code}: ${res.stdout.replace(/\x1b\[[0-9;]*m/g, '').split('\n').filter((l) => /ERR|WARN/.test(l)).join(' | ') || res.stderr.trim()}`;
    return null;
  };

  const waitHealthy = async (timeoutMs = 30_000): Promise<void> => {
    const end = Date.now() + timeoutMs;
    let problem: string | null = 'not checked';
    for (;;) {
      try {
        problem = await healthProblem();
      } catch (err) {
        problem = String(err);
      }
      if (problem === null) return;
      if (Date.now() > end) throw new Error(`redis cluster not healthy after ${timeoutMs} ms: ${problem}`);
      await sleep(50);
    }
  };

  const addNode = async (replicaOf?: ClusterNode): Promise<Node> => {
    if (stopped) throw new Error('redis cluster: stopped');
    await waitHealthy();
    const node = await newNode();
    await node.start();
    const existing = liveNodes().find((n) => n !== node);
    if (!existing) throw new Error('redis cluster: no running node to add a node to');
    const extra = replicaOf ? ['--cluster-slave', '--cluster-master-id', await nodeId(replicaOf)] : [];
    await clusterTool('add-node', [`${HOST}:${node.port}`, `${HOST}:${existing.port}`, ...extra], 60_000);
    await nodeId(node);
    await waitHealthy();
    return node;
  };

  const cluster: RedisCluster = {
    flavor,
    nodes,
    seeds: '',
    url: '',
    cliBinary: cli,
    async primaries() {
      const v = await anyView();
      return v.filter((l) => isMaster(l) && !isFailing(l)).map(lineToNode).filter((n): n is Node => !!n && n.live());
    },
    async replicas() {
      const v = await anyView();
      return v.filter((l) => !isMaster(l) && !isFailing(l)).map(lineToNode).filter((n): n is Node => !!n && n.live());
    },
    async slotOwner(slot: number) {
      const v = await anyView();
      const l = v.find((x) => isMaster(x) && ownsSlot(x, slot));
      if (!l) throw new Error(`redis cluster: slot ${slot} is not served`);
      const n = lineToNode(l);
      if (!n) throw new Error(`redis cluster: slot ${slot} is served by unknown node ${l.id} (port ${l.port})`);
      return n;
    },
    async slotsOf(n: ClusterNode) {
      const id = await nodeId(n);
      const l = (await anyView()).find((x) => x.id === id);
      const out: number[] = [];
      if (l && isMaster(l)) for (const [a, b] of l.ranges) for (let s = a; s <= b; s++) out.push(s);
      return out.sort((a, b) => a - b);
    },
    async primaryOf(n: ClusterNode) {
      const id = await nodeId(n);
      const l = (await anyView()).find((x) => x.id === id);
      if (!l) throw new Error(`redis cluster: node ${n.port} unknown to the cluster`);
      return l.masterId ? nodeById(l.masterId) : null;
    },
    keySlot: (key: string | Buffer) => calculateSlot(key),
    nodeId,
    nodeById,
    waitHealthy,
    async waitPromoted(killed: ClusterNode, timeoutMs = 30_000) {
      const node = asNode(killed);
      const end = Date.now() + timeoutMs;
      const killedId = await nodeId(node);
      // The killed node's last view of itself and its replicas is its nodes.conf.
      const conf = parseNodes(fs.readFileSync(path.join(node.dir, 'nodes.conf'), 'utf8'));
      const self = conf.find((l) => l.id === killedId);
      const formerReplicas = new Set(conf.filter((l) => l.masterId === killedId).map((l) => l.id));
      if (!self || !isMaster(self) || slotCount(self) === 0) throw new Error(`waitPromoted: node ${node.port} was not a primary serving slots`);
      if (formerReplicas.size === 0) throw new Error(`waitPromoted: node ${node.port} had no replica`);
      const probe = self.ranges[0]![0];
      let promoted: Node | undefined;
      await waitFor(
        `a replica of ${node.port} (${killedId}) to serve its ${slotCount(self)} slots`,
        async () => {
          const v = await anyView();
          const owner = v.find((l) => isMaster(l) && !isFailing(l) && ownsSlot(l, probe));
          if (!owner || !formerReplicas.has(owner.id)) return false;
          if (!self.ranges.every(([a, b]) => owner.ranges.some(([c, d]) => c <= a && b <= d))) return false;
          promoted = lineToNode(owner);
          return promoted !== undefined;
        },
        { timeoutMs, intervalMs: 50 },
      );
      await waitHealthy(Math.max(1000, end - Date.now()));
      return promoted!;
    },
    async reshard({ from, to, slots, timeoutMs = 120_000 }) {
      await waitHealthy();
      const [fromId, toId] = await Promise.all([nodeId(from), nodeId(to)]);
      const via = asNode(from).live() ? asNode(from) : anyLive();
      await clusterTool(
        'reshard',
        [`${HOST}:${via.port}`, '--cluster-from', fromId, '--cluster-to', toId, '--cluster-slots', String(slots), '--cluster-yes'],
        timeoutMs,
      );
      await waitHealthy();
    },
    async rebalance({ useEmptyMasters = false, threshold, timeoutMs = 120_000 } = {}) {
      await waitHealthy();
      const args = [`${HOST}:${anyLive().port}`];
      if (useEmptyMasters) args.push('--cluster-use-empty-masters');
      if (threshold !== undefined) args.push('--cluster-threshold', String(threshold));
      await clusterTool('rebalance', args, timeoutMs);
      await waitHealthy();
    },
    addPrimary: () => addNode(),
    addReplica: (primary: ClusterNode) => addNode(primary),
    async clusterCommand(line: string | string[], timeoutMs = 5000) {
      const end = Date.now() + timeoutMs;
      let port = anyLive().port;
      let asking = false;
      for (let hop = 0; ; hop++) {
        const reply = await respCommand(port, line, { timeoutMs: Math.max(500, end - Date.now()), prefix: asking ? ['ASKING'] : [] });
        const m = /^-(MOVED|ASK) \d+ (\S+):(\d+)/.exec(reply);
        const retry = reply.startsWith('-TRYAGAIN');
        if ((!m && !retry) || hop >= 16 || Date.now() > end) return reply;
        if (m) {
          port = Number(m[3]);
          asking = m[1] === 'ASK';
        } else {
          await sleep(50);
        }
      }
    },
    cli: cliRun,
    async killAll() {
      await Promise.all(nodes.map((n) => n.kill()));
    },
    async restartAll(timeoutMs = 60_000) {
      await Promise.all(nodes.map((n) => n.stop()));
      await Promise.all(nodes.map((n) => n.start()));
      await waitHealthy(timeoutMs);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await Promise.all(
        nodes.map(async (n) => {
          n.retired = true;
          try {
            await n.stop();
          } catch {
            await n.kill().catch(() => undefined);
          }
        }),
      );
      if (process.env.RUNNEL_TEST_KEEP !== '1') fs.rmSync(baseDir, { recursive: true, force: true });
    },
  };

  try {
    const initial: Node[] = [];
    for (let i = 0; i < nPrimaries * (1 + nReplicas); i++) initial.push(await newNode());
    await Promise.all(initial.map((n) => n.start()));
    await clusterTool(
      'create',
      [...initial.map((n) => `${HOST}:${n.port}`), '--cluster-replicas', String(nReplicas), '--cluster-yes'],
      Math.max(1000, deadline - Date.now()),
    );
    await Promise.all(initial.map((n) => nodeId(n)));
    await waitHealthy(Math.max(1000, deadline - Date.now()));
    const prim = await cluster.primaries();
    if (prim.length !== nPrimaries) throw new Error(`redis cluster: expected ${nPrimaries} primaries after create, got ${prim.length}`);
    // In creation order (redis-cli makes the first N addresses the primaries).
    prim.sort((a, b) => initial.indexOf(a as Node) - initial.indexOf(b as Node));
    cluster.seeds = prim.map((n) => n.url).join(',');
    cluster.url = cluster.seeds;
  } catch (err) {
    const logs = nodes.map((n) => (n.proc() ? `${n.port}: ${n.proc().logFile}` : `${n.port}: not started`)).join('\n');
    await cluster.stop().catch(() => undefined);
    throw new Error(`${String(err instanceof Error ? err.message : err)}\nnode logs:\n${logs}`);
  }
  return cluster;
}
