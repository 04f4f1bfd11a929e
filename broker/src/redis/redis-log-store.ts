import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { ConnectionOptions } from 'node:tls';
import { connectClient, createRedisClient, isCluster, probeClusterMode } from '../../../common/redis/connect.js';
import { nodeKey, parseRedisEndpoints, type RedisEndpoints } from '../../../common/redis/endpoints.js';
import { RunnelError } from '../../../common/errors.js';
import { fetchBatchOf, type AbortedTxn, type AppendRequest, type AppendResult, type FetchBatch, type LogStore, type PartitionTail, type StoredBatch, type TopicPartition, type TopicRecord } from '../storage/log-store.js';
import { readAborted, readLastAborted, txnArg } from './txn-index.js';
import { luaSource } from './lua.js';
import { guard, guardWithin, storageError, toBatches, type RawEntry } from './stream-entries.js';
import { RedisCompaction, defineCompactionCommands, type CompactionRedis } from './redis-compaction.js';
import { LogReads, type Ranges } from './log-reads.js';
import { ShardReaders, streamingRanges } from './read-connection.js';
import { decodeTopic, encodeTopic } from './topic-records.js';
import { Keys, META_FIELD, entryId, partitionTag } from './keys.js';
import { bulk } from './append-connection.js';
import { ShardAppenders, isTopologyError } from './shard-appenders.js';
import { placePartitions, slotOfTag } from './placement.js';

/**
 * What a partition reads when it (re)loads its state: a reload follows a
 * failed append or a lost WAIT, often during a Redis failover, and must fail
 * (the producer retries) rather than hang its produce requests.
 */
const RELOAD_TIMEOUT_MS = 5_000;

/** append-fence.lua / expire-producers.lua reject a stale writer with an error reply starting with FENCED. */
const isFenceError = (e: unknown): boolean => e instanceof Error && /^FENCED\b/.test(e.message);
const isNoScript = (e: unknown): boolean => e instanceof Error && /^NOSCRIPT\b/.test(e.message);

/** The largest stream id: a stream whose last id is this refuses every XADD with an explicit id (lua/append-fence.lua). */
const CLOSED_ID = '18446744073709551615-18446744073709551615';

/** EXEC's array of replies; an aborted transaction (EXECABORT, a MOVED while queueing...) throws its error. */
function execArray(reply: unknown): unknown[] {
  if (Array.isArray(reply)) return reply;
  throw reply instanceof Error ? reply : new Error(`unexpected EXEC reply ${String(reply)}`);
}

/**
 * The outcome of one append transaction from its replies [fence, XADD,
 * XSETID]. Stored only when the fence returned 1 and the XADD its id; a
 * fence that failed any other way than FENCED is STORAGE_FENCE_SCRIPT_FAILED
 * (retriable for the client: the batch is not stored).
 */
function appendOutcome(replies: unknown[], id: string): AppendResult {
  const [fence, added] = replies;
  if (fence === 1 && added === id) return 'ok';
  if (isFenceError(fence)) return { fenced: (fence as Error).message };
  if (fence instanceof Error) {
    const stored = added === id ? ' (yet the batch was stored: the stream was not closed)' : '';
    throw new RunnelError('STORAGE_FENCE_SCRIPT_FAILED', `append fence script failed: ${fence.message}${stored}`, { cause: fence });
  }
  throw storageError(added instanceof Error ? added : new Error(`append fence returned ${String(fence)}, XADD ${String(added)}`));
}

const FENCE_LUA = luaSource('append-fence');
const FENCE_SHA = createHash('sha1').update(FENCE_LUA).digest('hex');
const EXPIRE_LUA = luaSource('expire-producers');
const RESTORE_EPOCH_LUA = luaSource('restore-epoch');
/** One connection attempt (RedisLogStoreOptions.connectTimeoutMs); the broker retries (and logs) on failure. */
const CONNECT_TIMEOUT_MS = 10_000;

type ScriptRedis = CompactionRedis & {
  expireProducers(meta: string, producers: string, ...args: string[]): Promise<number>;
  restoreEpoch(meta: string, epoch: string): Promise<number>;
};

/** One Redis primary in the placement report. */
export interface PrimaryPlacement {
  node: string;
  /** `<topic>/<partition>`, in topic order. */
  partitions: string[];
  /** Bytes held by those partitions' log streams. */
  bytes: number;
}

export interface RedisLogStoreOptions {
  /** TLS options for rediss:// (the same for ioredis and the append connections). */
  tls?: ConnectionOptions;
  /** The longest one connect() waits for Redis to be ready (redis.connection.timeout.ms); 10 s when absent. */
  connectTimeoutMs?: number;
}

/** Per partition: its five script keys, its cluster slot and the constant RESP around the append's arguments. */
interface AppendHead {
  keys: [string, string, string, string, string];
  slot: number;
  fence: string;
  xadd: string;
  close: string;
}

export class RedisLogStore implements LogStore {
  private client: ScriptRedis | null = null;
  private readonly keys: Keys;
  private readonly endpoints: RedisEndpoints;
  /** Zero-copy append path (plain or TLS; one connection per primary in cluster mode); null for unix sockets (ioredis appends). */
  private appenders: ShardAppenders | null = null;
  /** Streaming read path for Fetch (read-connection.ts); null for unix sockets (ioredis reads). */
  private readers: ShardReaders | null = null;
  private fetchRanges: Ranges<FetchBatch> | null = null;
  private clusterMode = false;
  readonly compaction: RedisCompaction;
  private readonly reads: LogReads;

  constructor(spec: string, prefix: string, private readonly options: RedisLogStoreOptions = {}) {
    try {
      this.endpoints = parseRedisEndpoints(spec);
    } catch (e) {
      throw new RunnelError('CONFIG_INVALID', `redis.url: ${e instanceof Error ? e.message : String(e)}`);
    }
    this.keys = new Keys(prefix);
    this.compaction = new RedisCompaction(() => this.redis, this.keys, (key) => this.memoryUsage(key));
    this.reads = new LogReads(() => this.redis, this.keys);
  }

  /** The ioredis client (a Cluster client in cluster mode); valid after connect(). */
  get redis(): ScriptRedis {
    if (!this.client) throw new RunnelError('STORAGE_UNAVAILABLE', 'redis is not connected yet');
    return this.client;
  }

  /** True when the server is a Redis Cluster (detected at connect). */
  get cluster(): boolean { return this.clusterMode; }

  /**
   * Detects the mode from the server (`cluster_enabled`), then connects.
   * Rejects with the TLS error itself when a handshake failed (a certificate
   * refused by either side); other failures can be retried.
   */
  async connect(): Promise<void> {
    const conn = { tls: this.options.tls };
    const timeoutMs = this.options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
    let client: ScriptRedis | null = null;
    try {
      this.clusterMode = await probeClusterMode(this.endpoints, conn, Math.min(5_000, timeoutMs));
      client = createRedisClient(this.endpoints, this.clusterMode, {
        ...conn,
        redis: {
          // Fail fast while Redis is away so clients get retriable errors, then recover by reconnecting.
          enableOfflineQueue: false,
          autoResendUnfulfilledCommands: false,
          maxRetriesPerRequest: 0,
          enableAutoPipelining: true,
          retryStrategy: (times: number) => Math.min(100 * times, 1000),
        },
        // No auto-pipelining on a cluster: ioredis redirects a MOVED/ASK per
        // auto-pipeline batch, not per command, so during a slot migration some
        // commands would fail instead of following the redirection (ioredis #2075).
        cluster: { enableOfflineQueue: false, enableAutoPipelining: false },
      }) as ScriptRedis;
      // Errors are surfaced per command; reconnect is automatic.
      client.on('error', () => undefined);
      client.defineCommand('expireProducers', { numberOfKeys: 2, lua: EXPIRE_LUA });
      client.defineCommand('restoreEpoch', { numberOfKeys: 1, lua: RESTORE_EPOCH_LUA });
      defineCompactionCommands(client);
      await connectClient(client, timeoutMs);
    } catch (e) {
      client?.disconnect();
      throw e;
    }
    this.client = client;
    // A cluster store never guesses a partition's hash tag: it must have read the topic's placement.
    this.keys.strict = this.clusterMode;
    // Every new append connection loads the script before any append is sent on it.
    this.appenders = this.endpoints.socketPath
      ? null
      : new ShardAppenders(this.endpoints, isCluster(client) ? client : null, this.options.tls, [['SCRIPT', 'LOAD', FENCE_LUA]]);
    this.readers = this.endpoints.socketPath ? null : new ShardReaders(this.endpoints, isCluster(client) ? client : null, this.options.tls);
    this.fetchRanges = this.readers ? streamingRanges(this.readers, this.reads.ioredisRanges) : null;
  }

  get keyNames(): Keys { return this.keys; }

  // ---------------------------------------------------------------- topics

  /** Every topic record read or written teaches the key builder its placement salts. */
  private learn(t: TopicRecord): TopicRecord {
    if (Number.isFinite(t.partitions)) this.keys.place(t.name, t.placement);
    return t;
  }

  async listTopics(): Promise<TopicRecord[]> {
    const all = await guard(this.redis.hgetall(this.keys.topics));
    return Object.entries(all).map(([name, json]) => this.learn(decodeTopic(name, json)));
  }

  async getTopic(name: string): Promise<TopicRecord | null> {
    const json = await guard(this.redis.hget(this.keys.topics, name));
    return json ? this.learn(decodeTopic(name, json)) : null;
  }

  /**
   * Cluster mode: the placement salts of partitions 0..t.partitions-1. The
   * partitions that exist already (`before`, the stored record) keep theirs,
   * salt 0 for a record written without placement (single-node era), so their
   * keys never move; only new partitions are spread evenly over the current
   * primaries (placement.ts). Single node: no placement (every tag `{topic/p}`).
   */
  private async placed(t: TopicRecord, before: TopicRecord | null): Promise<TopicRecord> {
    return (await this.placedMany([t], before ? [before] : [null]))[0]!;
  }

  /**
   * placed() for several records at once: the slot map is refreshed and the
   * partitions per primary are counted once, and each record's new
   * partitions are counted in before the next one is placed.
   */
  private async placedMany(ts: TopicRecord[], befores: Array<TopicRecord | null>): Promise<TopicRecord[]> {
    const client = this.redis;
    const had = (i: number): number => { const b = befores[i]; return b && Number.isFinite(b.partitions) ? b.partitions : 0; };
    const kept = ts.map((t, i) => {
      const before = befores[i];
      const k = before?.placement ? { ...t, placement: before.placement } : { ...t, placement: undefined };
      if (!k.placement) delete k.placement;
      return k;
    });
    if (!isCluster(client) || ts.every((t, i) => t.partitions <= had(i))) return kept;
    // Place on the primaries serving slots now (a shard may have been added since the last periodic refresh).
    await new Promise<void>((resolve) => client.refreshSlotsCache(() => resolve()));
    const ownerOf = (slot: number): string | null => this.ownerOf(slot);
    const primaries = [...new Set(client.slots.map((s) => s?.[0]).filter((n): n is string => Boolean(n)))].sort();
    const load = new Map<string, number>();
    const count = (name: string, partitions: number, placement: number[] | undefined): void => {
      for (let p = 0; p < partitions; p++) {
        const owner = ownerOf(slotOfTag(partitionTag(name, p, placement?.[p] ?? 0)));
        if (owner) load.set(owner, (load.get(owner) ?? 0) + 1);
      }
    };
    const placing = new Set(ts.map((t) => t.name));
    for (const other of await this.listTopics()) {
      if (!placing.has(other.name) && Number.isFinite(other.partitions)) count(other.name, other.partitions, other.placement);
    }
    return kept.map((t, i) => {
      if (t.partitions <= had(i)) return t;
      const existing = Array.from({ length: had(i) }, (_, p) => befores[i]?.placement?.[p] ?? 0);
      const placement = placePartitions({ topic: t.name, existing, total: t.partitions, ownerOf, primaries, load });
      count(t.name, t.partitions, placement);
      return { ...t, placement };
    });
  }

  async createTopic(t: TopicRecord): Promise<TopicRecord | null> {
    return (await this.createTopics([t]))[0]!;
  }

  /**
   * Bulk createTopic: placed together, one HSETNX per record sent at once
   * (pipelined; every field is in the one topics hash), then the id index of
   * the records that were created.
   */
  async createTopics(ts: TopicRecord[]): Promise<Array<TopicRecord | null>> {
    if (ts.length === 0) return [];
    const stored = await this.placedMany(ts, ts.map(() => null));
    const created = await guard(Promise.all(stored.map((t) => this.redis.hsetnx(this.keys.topics, t.name, encodeTopic(t)))));
    const fresh = stored.filter((_, i) => created[i] === 1);
    if (fresh.length > 0) await guard(this.redis.hset(this.keys.topicIds, ...fresh.flatMap((t) => [t.id, t.name])));
    return stored.map((t, i) => (created[i] === 1 ? this.learn(t) : null));
  }

  async updateTopic(t: TopicRecord): Promise<TopicRecord> {
    // The placement is the stored one (never the caller's copy), extended for new partitions only.
    const stored = await this.placed(t, await this.getTopic(t.name));
    await guard(this.redis.hset(this.keys.topics, t.name, encodeTopic(stored)));
    return this.learn(stored);
  }

  async deleteTopic(t: TopicRecord): Promise<void> {
    await guard(this.redis.hdel(this.keys.topics, t.name));
    await guard(this.redis.hdel(this.keys.topicIds, t.id));
    const dels: Promise<unknown>[] = [];
    // Each partition's keys share one hash tag: one DEL per partition is cluster-safe.
    for (let p = 0; p < t.partitions; p++) dels.push(this.redis.del(...this.keys.partitionKeys({ topic: t.name, partition: p })));
    await guard(Promise.all(dels));
  }

  // ---------------------------------------------------------------- log

  async tail(tp: TopicPartition): Promise<PartitionTail> {
    const [last, meta] = await guardWithin(Promise.all([
      this.redis.xrevrangeBuffer(this.keys.log(tp), '+', '-', 'COUNT', 1) as unknown as Promise<RawEntry[]>,
      this.redis.hmget(this.keys.meta(tp), META_FIELD.logStartOffset, META_FIELD.leaderEpoch, META_FIELD.archived, META_FIELD.next, META_FIELD.cleanedTo, META_FIELD.remoteLogStart),
    ]), RELOAD_TIMEOUT_MS);
    const batches = toBatches(last);
    return {
      last: batches[0] ?? null,
      nextOffset: meta[3] === null ? null : Number(meta[3]),
      logStartOffset: meta[0] === null ? 0 : Number(meta[0]),
      leaderEpoch: meta[1] === null ? 0 : Number(meta[1]),
      archivedOffset: meta[2] === null ? -1 : Number(meta[2]),
      cleanedTo: meta[4] === null ? 0 : Number(meta[4]),
      remoteLogStartOffset: meta[5] === null || meta[5] === undefined ? null : Number(meta[5]),
    };
  }

  private readonly appendHeads = new WeakMap<TopicPartition, AppendHead>();

  private appendHead(tp: TopicPartition): AppendHead {
    let h = this.appendHeads.get(tp);
    if (!h) {
      const keys: [string, string, string, string, string] = [this.keys.log(tp), this.keys.meta(tp), this.keys.producers(tp), this.keys.txns(tp), this.keys.aborted(tp)];
      h = {
        keys,
        slot: slotOfTag(this.keys.tag(tp)),
        // MULTI, then EVALSHA <sha> 5 <5 keys> and (appended per call) the 6 fence arguments: 14 elements
        fence: `*1\r\n$5\r\nMULTI\r\n*14\r\n${bulk('EVALSHA')}${bulk(FENCE_SHA)}${bulk('5')}${keys.map(bulk).join('')}`,
        // XADD <log> NOMKSTREAM followed by <id> b <batch>
        xadd: `*6\r\n${bulk('XADD')}${bulk(keys[0])}${bulk('NOMKSTREAM')}`,
        // XSETID <log> <max id>, then EXEC
        close: `\r\n*3\r\n${bulk('XSETID')}${bulk(keys[0])}${bulk(CLOSED_ID)}*1\r\n$4\r\nEXEC\r\n`,
      };
      this.appendHeads.set(tp, h);
    }
    return h;
  }

  /**
   * One transaction per batch: the fence script (small arguments), the XADD
   * with the batch as a zero-copy argument, and the XSETID that closes the
   * stream again (see lua/append-fence.lua), on the connection to the
   * primary that owns the partition's slot. The XADD can only succeed when
   * the script ran and accepted, so any script failure stores nothing. After
   * a NOSCRIPT (SCRIPT FLUSH, or a failover to a primary that never loaded
   * it) the script is loaded again and the append sent once more; a second
   * failure is a retriable STORAGE_FENCE_SCRIPT_FAILED. Callers pass the same
   * TopicPartition object for a partition, so the encoded keys are reused.
   */
  async append(tp: TopicPartition, req: AppendRequest): Promise<AppendResult> {
    const head = this.appendHead(tp);
    const fenceArgs = [String(req.epoch), String(req.baseOffset), String(req.nextOffset), req.producer ? String(req.producer.id) : '', req.producer ? req.producer.state : '', req.producer ? txnArg(req.txn) : ''];
    const id = entryId(req.baseOffset);
    let replies: unknown[];
    try {
      if (this.appenders) {
        const conn = this.appenders.forSlot(head.slot);
        const parts = [`${head.fence}${fenceArgs.map(bulk).join('')}${head.xadd}${bulk(id)}$1\r\nb\r\n$${req.batch.length}\r\n`, req.batch, head.close];
        // MULTI (+OK), EVALSHA, XADD, XSETID (+QUEUED each): four replies consumed before EXEC's.
        replies = execArray(await conn.raw(parts, 4));
        if (isNoScript(replies[0])) {
          // Nothing was stored (the stream stayed closed). The load and the
          // retry are pipelined at once, so appends behind this one on the
          // connection are retried in their order.
          // A load that failed shows as NOSCRIPT again in the retry's replies.
          const load = conn.command(['SCRIPT', 'LOAD', FENCE_LUA]);
          const retry = conn.raw(parts, 4);
          await load;
          replies = execArray(await retry);
        }
      } else {
        const [log] = head.keys;
        const out = await this.redis.multi().eval(FENCE_LUA, 5, ...head.keys, ...fenceArgs).xadd(log, 'NOMKSTREAM', id, 'b', req.batch).xsetid(log, CLOSED_ID).exec();
        if (!out) throw new Error('transaction aborted');
        replies = out.map(([e, v]) => e ?? v);
      }
    } catch (e) {
      // The slot moved or its primary died: learn the new map; the partition reloads and the client retries.
      if (isTopologyError(e)) this.appenders?.refresh();
      throw storageError(e);
    }
    return appendOutcome(replies, id);
  }

  async restoreLeaderEpoch(tp: TopicPartition, epoch: number): Promise<number> {
    return guardWithin(this.redis.restoreEpoch(this.keys.meta(tp), String(epoch)), RELOAD_TIMEOUT_MS);
  }

  async producerStates(tp: TopicPartition): Promise<Map<number, string>> {
    const all = await guardWithin(this.redis.hgetall(this.keys.producers(tp)), RELOAD_TIMEOUT_MS);
    return new Map(Object.entries(all).map(([pid, s]) => [Number(pid), s]));
  }

  async expireProducers(tp: TopicPartition, epoch: number, cutoffMs: number, producerIds: number[]): Promise<number> {
    if (producerIds.length === 0) return 0;
    try {
      return await this.redis.expireProducers(this.keys.meta(tp), this.keys.producers(tp), String(epoch), String(cutoffMs), ...producerIds.map(String));
    } catch (e) {
      if (isFenceError(e)) return 0;
      throw storageError(e);
    }
  }

  read(tp: TopicPartition, offset: number, count: number): Promise<StoredBatch[]> { return this.reads.read(tp, offset, count); }

  async readForFetch(tp: TopicPartition, offset: number, count: number): Promise<FetchBatch[]> {
    if (this.fetchRanges) return this.reads.readVia(this.fetchRanges, tp, offset, count);
    return (await this.reads.read(tp, offset, count)).map(fetchBatchOf);
  }

  readBackwards(tp: TopicPartition, beforeOrAt: number, count: number): Promise<StoredBatch[]> { return this.reads.readBackwards(tp, beforeOrAt, count); }

  async setRemoteLogStartOffset(tp: TopicPartition, offset: number | null): Promise<void> {
    const key = this.keys.meta(tp);
    await guard(offset === null ? this.redis.hdel(key, META_FIELD.remoteLogStart) : this.redis.hset(key, META_FIELD.remoteLogStart, String(offset)));
  }

  async setLogStartOffset(tp: TopicPartition, offset: number): Promise<void> {
    // One slot (the partition's hash tag): the aborted ranges that end below the new start go with it.
    const out = await guard(this.redis.multi()
      .hset(this.keys.meta(tp), META_FIELD.logStartOffset, String(offset))
      .zremrangebyscore(this.keys.aborted(tp), '-inf', `(${offset}`)
      .exec());
    const failed = out?.find(([e]) => e)?.[0];
    if (failed) throw storageError(failed);
  }

  abortedTxns(tp: TopicPartition, fromOffset: number, limit: number): Promise<AbortedTxn[]> { return readAborted(this.redis, this.keys.aborted(tp), fromOffset, limit); }

  lastAbortedOffset(tp: TopicPartition): Promise<number> { return guardWithin(readLastAborted(this.redis, this.keys.aborted(tp)), RELOAD_TIMEOUT_MS); }

  async trimBefore(tp: TopicPartition, minBaseOffset: number): Promise<number> {
    const [log, compacted] = await guard(Promise.all([
      this.redis.xtrim(this.keys.log(tp), 'MINID', entryId(minBaseOffset)),
      this.redis.xtrim(this.keys.compacted(tp), 'MINID', entryId(minBaseOffset)),
    ]));
    return log + compacted;
  }

  async sizeBytes(tp: TopicPartition): Promise<number> {
    const { log, compacted } = await this.compaction.sizes(tp);
    return log + compacted;
  }

  /** MEMORY USAGE names its key after a subcommand, which cluster clients do not route: sent to the owner. 0 when missing. */
  private async memoryUsage(key: string): Promise<number> {
    const n = await guard(this.nodeFor(key).call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
    return n === null ? 0 : Number(n);
  }

  // ---------------------------------------------------------------- cluster

  async nextProducerId(): Promise<number> {
    return guard(this.redis.incr(this.keys.producerId));
  }

  async clusterId(): Promise<string> {
    const fresh = randomBytes(16).toString('base64url').slice(0, 22);
    await guard(this.redis.set(this.keys.clusterId, fresh, 'NX'));
    return (await guard(this.redis.get(this.keys.clusterId))) ?? fresh;
  }

  /** WAIT / WAITAOF on the connection that carried the partition's appends (its shard's primary), so they cover them. */
  private async call(tp: TopicPartition, args: string[]): Promise<unknown> {
    if (!this.appenders) return this.redis.call(args[0]!, ...args.slice(1));
    const reply = await this.appenders.forSlot(this.appendHead(tp).slot).command(args);
    if (reply instanceof Error) {
      if (isTopologyError(reply)) this.appenders.refresh();
      throw reply;
    }
    return reply;
  }

  async waitReplicas(tp: TopicPartition, replicas: number, aof: boolean, timeoutMs: number, coverStored = false): Promise<{ replicas: number; aofLocal: boolean }> {
    // WAIT and WAITAOF cover the writes of the connection they run on (Redis
    // keeps each client's last replication offset). A batch stored over an
    // earlier, since dropped append connection is covered by one write on
    // this connection first: the primary's replication stream is one
    // sequence, so confirming this write confirms every write before it.
    if (coverStored && (replicas > 0 || aof)) await guard(this.call(tp, ['HINCRBY', this.keys.meta(tp), META_FIELD.syncs, '1']));
    if (aof) {
      try {
        const [local, remote] = (await this.call(tp, ['WAITAOF', '1', String(replicas), String(timeoutMs)])) as [number, number];
        return { replicas: remote, aofLocal: local >= 1 };
      } catch (e) {
        // Servers without WAITAOF (Redis < 7.2) or without appendonly fall back to WAIT.
        if (!(e instanceof Error) || !/unknown command|appendonly/i.test(e.message)) throw storageError(e);
      }
    }
    if (replicas <= 0) return { replicas: 0, aofLocal: false };
    const n = (await guard(this.call(tp, ['WAIT', String(replicas), String(timeoutMs)]))) as number;
    return { replicas: n, aofLocal: false };
  }

  /** "host:port" of the primary that owns `slot` now (the one node when not a cluster); null while the slot has no owner. */
  private ownerOf(slot: number): string | null {
    const client = this.redis;
    if (!isCluster(client)) return nodeKey(this.endpoints.seeds[0]!);
    return client.slots[slot]?.[0] ?? null;
  }

  /** The ioredis node of the primary that owns a key's slot (cluster mode), else the client. */
  private nodeFor(key: string): Redis | ScriptRedis {
    const client = this.redis;
    if (!isCluster(client)) return client;
    const owner = this.ownerOf(slotOfTag(key));
    const node = owner ? client.nodes('master').find((n) => `${n.options.host}:${n.options.port}` === owner) : undefined;
    if (!node) throw new RunnelError('STORAGE_UNAVAILABLE', `CLUSTERDOWN no primary known for key ${key}`);
    return node;
  }

  /**
   * Replica counts per primary, read at most once a second while there are
   * replicas (not once per append); a count of 0 is read again every time, so
   * a replica that (re)connects is seen at once. A replica lost within the
   * second is caught by the WAIT that follows the append.
   */
  private readonly replicaCounts = new Map<string, { n: number; at: number }>();

  async connectedReplicas(tp: TopicPartition): Promise<number> {
    const key = this.keys.log(tp);
    const id = this.ownerOf(slotOfTag(key)) ?? '';
    const cached = this.replicaCounts.get(id);
    if (cached && Date.now() - cached.at < 1_000) return cached.n;
    // Over the partition's append connection when there is one: the primary
    // that will take the append, with the connection's reply deadline; no
    // ioredis command (whose retry queue can hold a command for minutes after
    // a failover) stands between a produce request and its answer.
    const info = String(this.appenders ? await guard(this.call(tp, ['INFO', 'replication'])) : await guard(this.nodeFor(key).info('replication')));
    const m = /connected_slaves:(\d+)/.exec(info);
    const n = m ? Number(m[1]) : 0;
    if (n > 0) this.replicaCounts.set(id, { n, at: Date.now() });
    else this.replicaCounts.delete(id);
    return n;
  }

  /**
   * Where the partitions live: per Redis primary (one entry for a single
   * node), the partitions whose slot it owns now and the bytes their streams
   * hold (MEMORY USAGE). For `runnel placement`.
   */
  async placementReport(): Promise<PrimaryPlacement[]> {
    const client = this.redis;
    const byNode = new Map<string, PrimaryPlacement>();
    const entry = (node: string): PrimaryPlacement => {
      let e = byNode.get(node);
      if (!e) byNode.set(node, (e = { node, partitions: [], bytes: 0 }));
      return e;
    };
    if (isCluster(client)) for (const n of client.nodes('master')) entry(`${n.options.host}:${n.options.port}`);
    const topics = (await this.listTopics()).filter((t) => Number.isFinite(t.partitions)).sort((a, b) => a.name.localeCompare(b.name));
    await Promise.all(topics.flatMap((t) => Array.from({ length: t.partitions }, async (_, partition) => {
      const tp = { topic: t.name, partition };
      const node = this.ownerOf(slotOfTag(this.keys.tag(tp))) ?? 'unassigned';
      const e = entry(node);
      e.partitions.push(`${t.name}/${partition}`);
      const bytes = await this.sizeBytes(tp);
      e.bytes += bytes;
    })));
    const order = (x: string): [string, number] => { const i = x.lastIndexOf('/'); return [x.slice(0, i), Number(x.slice(i + 1))]; };
    for (const e of byNode.values()) e.partitions.sort((a, b) => { const [ta, pa] = order(a); const [tb, pb] = order(b); return ta === tb ? pa - pb : ta.localeCompare(tb); });
    return [...byNode.values()].sort((a, b) => a.node.localeCompare(b.node));
  }

  async close(): Promise<void> {
    this.appenders?.close();
    this.readers?.close();
    this.client?.disconnect();
  }
}
