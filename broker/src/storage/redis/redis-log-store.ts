import { createHash, randomBytes } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import { RunnelError } from '../../errors.js';
import type { AppendRequest, AppendResult, LogStore, PartitionTail, StoredBatch, TopicPartition, TopicRecord } from '../log-store.js';
import { luaSource } from './lua.js';
import { Keys, baseOfEntryId, entryId } from './keys.js';
import { AppendConnection, bulk, parseAppendTarget } from './append-connection.js';
import { isTlsConfigError } from './tls-options.js';

type RawEntry = [Buffer, Buffer[]];

function toBatches(entries: RawEntry[] | null | undefined): StoredBatch[] {
  if (!entries) return [];
  const out: StoredBatch[] = new Array(entries.length);
  for (let i = 0; i < entries.length; i++) {
    const [id, fields] = entries[i]!;
    out[i] = { baseOffset: baseOfEntryId(id), bytes: fieldValue(fields) };
  }
  return out;
}

function fieldValue(fields: Buffer[]): Buffer {
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i]!.length === 1 && fields[i]![0] === 0x62 /* 'b' */) return fields[i + 1]!;
  }
  throw new RunnelError('STORAGE_CORRUPT', 'stream entry without a batch field');
}

/** append-fence.lua / expire-producers.lua reject a stale writer with an error reply starting with FENCED. */
const isFenceError = (e: unknown): boolean => e instanceof Error && /^FENCED\b/.test(e.message);

const FENCE_LUA = luaSource('append-fence');
const FENCE_SHA = createHash('sha1').update(FENCE_LUA).digest('hex');
const EXPIRE_LUA = luaSource('expire-producers');

type ScriptRedis = Redis & {
  expireProducers(meta: string, producers: string, ...args: string[]): Promise<number>;
};

export class RedisLogStore implements LogStore {
  readonly redis: ScriptRedis;
  private readonly keys: Keys;
  /** Zero-copy append path (plain or TLS); null for URLs it does not speak (unix sockets: then ioredis appends). */
  private readonly appender: AppendConnection | null;

  constructor(url: string, prefix: string, options: RedisOptions = {}) {
    this.keys = new Keys(prefix);
    this.redis = new Redis(url, {
      // Fail fast while Redis is away so clients get retriable errors, then recover by reconnecting.
      enableOfflineQueue: false,
      autoResendUnfulfilledCommands: false,
      maxRetriesPerRequest: 0,
      enableAutoPipelining: true,
      retryStrategy: (times) => Math.min(100 * times, 1000),
      lazyConnect: true,
      ...options,
    }) as ScriptRedis;
    // Surfaced per command; reconnect is automatic. A TLS failure is kept for connect(), which ioredis rejects with only "Connection is closed.".
    this.redis.on('error', (e: Error) => { if (isTlsConfigError(e)) this.tlsError = e; });
    this.redis.defineCommand('expireProducers', { numberOfKeys: 2, lua: EXPIRE_LUA });
    // rediss://: the append connection uses the same TLS options as ioredis (`options.tls`).
    const target = parseAppendTarget(url, typeof options.tls === 'object' ? options.tls : {});
    // Every new append connection loads the script before any append is sent on it.
    this.appender = target ? new AppendConnection(target, undefined, [['SCRIPT', 'LOAD', FENCE_LUA]]) : null;
  }

  private tlsError: Error | null = null;

  /** Rejects with the TLS error itself when a handshake failed (a certificate refused by either side). */
  async connect(): Promise<void> {
    this.tlsError = null;
    try {
      await this.redis.connect();
    } catch (e) {
      throw this.tlsError ?? e;
    }
  }

  get keyNames(): Keys { return this.keys; }

  // ---------------------------------------------------------------- topics

  async listTopics(): Promise<TopicRecord[]> {
    const all = await guard(this.redis.hgetall(this.keys.topics));
    return Object.entries(all).map(([name, json]) => decodeTopic(name, json));
  }

  async getTopic(name: string): Promise<TopicRecord | null> {
    const json = await guard(this.redis.hget(this.keys.topics, name));
    return json ? decodeTopic(name, json) : null;
  }

  private encodeTopic(t: TopicRecord): string {
    return JSON.stringify({ id: t.id, partitions: t.partitions, configs: t.configs, created: t.created });
  }

  async createTopic(t: TopicRecord): Promise<boolean> {
    const created = await guard(this.redis.hsetnx(this.keys.topics, t.name, this.encodeTopic(t)));
    if (created === 1) await guard(this.redis.hset(this.keys.topicIds, t.id, t.name));
    return created === 1;
  }

  async updateTopic(t: TopicRecord): Promise<void> {
    await guard(this.redis.hset(this.keys.topics, t.name, this.encodeTopic(t)));
  }

  async deleteTopic(t: TopicRecord): Promise<void> {
    await guard(this.redis.hdel(this.keys.topics, t.name));
    await guard(this.redis.hdel(this.keys.topicIds, t.id));
    const dels: Promise<unknown>[] = [];
    for (let p = 0; p < t.partitions; p++) dels.push(this.redis.del(...this.keys.partitionKeys({ topic: t.name, partition: p })));
    await guard(Promise.all(dels));
  }

  // ---------------------------------------------------------------- log

  async tail(tp: TopicPartition): Promise<PartitionTail> {
    const [last, meta] = await guard(Promise.all([
      this.redis.xrevrangeBuffer(this.keys.log(tp), '+', '-', 'COUNT', 1) as unknown as Promise<RawEntry[]>,
      this.redis.hmget(this.keys.meta(tp), 'logStartOffset', 'leaderEpoch', 'archived', 'next'),
    ]));
    const batches = toBatches(last);
    return {
      last: batches[0] ?? null,
      nextOffset: meta[3] === null ? null : Number(meta[3]),
      logStartOffset: meta[0] === null ? 0 : Number(meta[0]),
      leaderEpoch: meta[1] === null ? 0 : Number(meta[1]),
      archivedOffset: meta[2] === null ? -1 : Number(meta[2]),
    };
  }

  /** Per partition: its three keys and the constant RESP around the append's arguments. */
  private readonly appendHeads = new WeakMap<TopicPartition, { keys: [string, string, string]; fence: string; xadd: string }>();

  private appendHead(tp: TopicPartition): { keys: [string, string, string]; fence: string; xadd: string } {
    let h = this.appendHeads.get(tp);
    if (!h) {
      const keys: [string, string, string] = [this.keys.log(tp), this.keys.meta(tp), this.keys.producers(tp)];
      h = {
        keys,
        // MULTI, then EVALSHA <sha> 3 <3 keys> and (appended per call) the 5 fence arguments: 11 elements
        fence: `*1\r\n$5\r\nMULTI\r\n*11\r\n${bulk('EVALSHA')}${bulk(FENCE_SHA)}${bulk('3')}${keys.map(bulk).join('')}`,
        // XADD <log> followed by <id> b <batch>
        xadd: `*5\r\n${bulk('XADD')}${bulk(keys[0])}`,
      };
      this.appendHeads.set(tp, h);
    }
    return h;
  }

  /**
   * One transaction per batch: the fence script (small arguments) then the
   * XADD with the batch as a zero-copy argument (see lua/append-fence.lua).
   * Callers pass the same TopicPartition object for a partition, so the
   * encoded keys are reused.
   */
  async append(tp: TopicPartition, req: AppendRequest): Promise<AppendResult> {
    const head = this.appendHead(tp);
    const fenceArgs = [String(req.epoch), String(req.baseOffset), String(req.nextOffset), req.producer ? String(req.producer.id) : '', req.producer ? req.producer.state : ''];
    const id = entryId(req.baseOffset);
    let fence: unknown;
    let added: unknown;
    try {
      if (this.appender) {
        // MULTI (+OK), EVALSHA (+QUEUED), XADD (+QUEUED), EXEC: three replies consumed before EXEC's.
        const reply = await this.appender.raw([
          `${head.fence}${fenceArgs.map(bulk).join('')}${head.xadd}${bulk(id)}$1\r\nb\r\n$${req.batch.length}\r\n`,
          req.batch,
          '\r\n*1\r\n$4\r\nEXEC\r\n',
        ], 3);
        if (!Array.isArray(reply)) throw reply instanceof Error ? reply : new Error(`unexpected EXEC reply ${String(reply)}`);
        [fence, added] = reply;
        // SCRIPT FLUSH behind our back: load it again; this append fails retriably and the partition reloads.
        if (fence instanceof Error && /^NOSCRIPT/.test(fence.message)) void this.appender.command(['SCRIPT', 'LOAD', FENCE_LUA]).catch(() => undefined);
      } else {
        const [log, meta, producers] = head.keys;
        const out = await this.redis.multi().eval(FENCE_LUA, 3, log, meta, producers, ...fenceArgs).xadd(log, id, 'b', req.batch).exec();
        if (!out) throw new Error('transaction aborted');
        fence = out[0]![0] ?? out[0]![1];
        added = out[1]![0] ?? out[1]![1];
      }
    } catch (e) {
      throw storageError(e);
    }
    if (isFenceError(fence)) return { fenced: (fence as Error).message };
    if (fence instanceof Error) throw storageError(fence);
    if (added instanceof Error) throw storageError(added);
    return 'ok';
  }

  async producerStates(tp: TopicPartition): Promise<Map<number, string>> {
    const all = await guard(this.redis.hgetall(this.keys.producers(tp)));
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

  /**
   * A sequential consumer fetches from a batch boundary, so one inclusive
   * XRANGE usually answers; only when the first entry starts past `offset`
   * is the batch containing it looked up with XREVRANGE.
   */
  async read(tp: TopicPartition, offset: number, count: number): Promise<StoredBatch[]> {
    const key = this.keys.log(tp);
    const id = entryId(offset);
    try {
      const from = toBatches(await (this.redis.xrangeBuffer(key, id, '+', 'COUNT', count) as unknown as Promise<RawEntry[]>));
      if (from.length > 0 && from[0]!.baseOffset === offset) return from;
      const containing = toBatches(await (this.redis.xrevrangeBuffer(key, id, '-', 'COUNT', 1) as unknown as Promise<RawEntry[]>));
      return containing.length ? [containing[0]!, ...from].slice(0, count) : from;
    } catch (e) {
      throw storageError(e);
    }
  }

  async readBackwards(tp: TopicPartition, beforeOrAt: number, count: number): Promise<StoredBatch[]> {
    try {
      return toBatches(await (this.redis.xrevrangeBuffer(this.keys.log(tp), entryId(beforeOrAt), '-', 'COUNT', count) as unknown as Promise<RawEntry[]>));
    } catch (e) {
      throw storageError(e);
    }
  }

  async setLogStartOffset(tp: TopicPartition, offset: number): Promise<void> {
    await guard(this.redis.hset(this.keys.meta(tp), 'logStartOffset', String(offset)));
  }

  async trimBefore(tp: TopicPartition, minBaseOffset: number): Promise<number> {
    return guard(this.redis.xtrim(this.keys.log(tp), 'MINID', entryId(minBaseOffset)));
  }

  async sizeBytes(tp: TopicPartition): Promise<number> {
    const n = await guard(this.redis.call('MEMORY', 'USAGE', this.keys.log(tp), 'SAMPLES', '0'));
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

  /** WAIT / WAITAOF on the connection that carried the appends, so they cover them. */
  private async call(args: string[]): Promise<unknown> {
    if (!this.appender) return this.redis.call(args[0]!, ...args.slice(1));
    const reply = await this.appender.command(args);
    if (reply instanceof Error) throw reply;
    return reply;
  }

  async waitReplicas(replicas: number, aof: boolean, timeoutMs: number): Promise<{ replicas: number; aofLocal: boolean }> {
    if (aof) {
      try {
        const [local, remote] = (await this.call(['WAITAOF', '1', String(replicas), String(timeoutMs)])) as [number, number];
        return { replicas: remote, aofLocal: local >= 1 };
      } catch (e) {
        // Servers without WAITAOF (Redis < 7.2) or without appendonly fall back to WAIT.
        if (!(e instanceof Error) || !/unknown command|appendonly/i.test(e.message)) throw storageError(e);
      }
    }
    if (replicas <= 0) return { replicas: 0, aofLocal: false };
    const n = (await guard(this.call(['WAIT', String(replicas), String(timeoutMs)]))) as number;
    return { replicas: n, aofLocal: false };
  }

  async connectedReplicas(): Promise<number> {
    const info = await guard(this.redis.info('replication'));
    const m = /connected_slaves:(\d+)/.exec(info);
    return m ? Number(m[1]) : 0;
  }

  async close(): Promise<void> {
    this.appender?.close();
    this.redis.disconnect();
  }
}

/**
 * A topic record as stored. One that is not a JSON object is returned with an
 * unusable partition count (NaN), so the log manager quarantines it (logged,
 * not served, deletable) instead of the broker failing to start.
 */
function decodeTopic(name: string, json: string): TopicRecord {
  try {
    const v: unknown = JSON.parse(json);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return { name, ...(v as Omit<TopicRecord, 'name'>) };
  } catch {
    /* falls through */
  }
  return { name, id: `invalid-record:${name}`, partitions: Number.NaN, configs: {}, created: 0 };
}

/** Every Redis failure leaves the store as a RunnelError(STORAGE_UNAVAILABLE). */
async function guard<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    throw storageError(e);
  }
}

function storageError(e: unknown): RunnelError {
  if (e instanceof RunnelError) return e;
  return new RunnelError('STORAGE_UNAVAILABLE', e instanceof Error ? e.message : String(e), { cause: e });
}
