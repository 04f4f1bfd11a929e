// The archiver on Redis Cluster, without a server: placement salts learnt from
// topic records, strict keys in cluster mode, the redis.tls.* settings, and the
// cluster rule that no pipeline, MULTI or script spans hash slots. A fake
// client records every command with its keys; pipeline() is refused outright
// and MULTI / EVAL must keep to one slot (like a Redis Cluster would).
import { createRequire } from 'node:module';
import { Cluster, Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { Archiver } from '../../../archiver/src/archiver.js';
import { publishArchived } from '../../../archiver/src/commit.js';
import { loadConfig, type ArchiverConfig } from '../../../archiver/src/config.js';
import { redisTlsSettings } from '../../../common/redis/tls-options.js';
import type { ArchiverContext } from '../../../archiver/src/context.js';
import { Keys, parsePlacement } from '../../../archiver/src/keys.js';
import { Leases } from '../../../archiver/src/lease.js';
import type { Logger } from '../../../common/logger/logger.js';
import { Membership } from '../../../archiver/src/membership.js';
import { emptyStats } from '../../../archiver/src/metrics.js';
import { pollOnce, refreshLogEnds } from '../../../archiver/src/reader.js';
import { abortedTransactionFilter } from '../../../archiver/src/records/transactions.js';
import { encodeBatch } from '../../helpers/encode-batch.js';
import type { ObjectStore } from '../../../common/lake/index.js';
import { TopicArchiver, type PartState } from '../../../archiver/src/topic-state.js';
import type { RedisClient } from '../../../common/redis/connect.js';

const calculateSlot = createRequire(import.meta.url)('cluster-key-slot') as (key: string) => number;

interface Sent {
  cmd: string;
  keys: string[];
}

/** A stand-in for a Redis Cluster client: one command = one slot; pipelines refused; MULTI within one slot. */
class FakeCluster {
  readonly sent: Sent[] = [];
  readonly streams = new Map<string, [Buffer, Buffer[]][]>();
  readonly hashes = new Map<string, Map<string, string>>();
  readonly strings = new Map<string, string>();
  /** keys whose commands fail (a shard away) */
  readonly failing = new Set<string>();

  private record(cmd: string, keys: string[]) {
    const slots = new Set(keys.map((k) => calculateSlot(k)));
    if (slots.size > 1) throw new Error(`CROSSSLOT ${cmd} ${keys.join(' ')}`);
    this.sent.push({ cmd, keys });
    for (const k of keys) if (this.failing.has(k)) throw new Error(`CLUSTERDOWN ${k}`);
  }

  pipeline(): never {
    throw new Error('pipeline() used: a cluster pipeline must keep to one node');
  }

  multi() {
    const keys: string[] = [];
    const ops: (() => unknown)[] = [];
    const self = this;
    const m = {
      zadd(k: string, score: number, member: string) {
        keys.push(k);
        ops.push(() => 1);
        void score;
        void member;
        return m;
      },
      zremrangebyscore(k: string) {
        keys.push(k);
        ops.push(() => 0);
        return m;
      },
      zrange(k: string) {
        keys.push(k);
        ops.push(() => ['a1']);
        return m;
      },
      async exec() {
        self.record('multi', keys);
        return ops.map((f) => [null, f()]);
      },
    };
    return m;
  }

  async hgetall(k: string) {
    this.record('hgetall', [k]);
    return Object.fromEntries(this.hashes.get(k) ?? []);
  }

  async hget(k: string, f: string) {
    this.record('hget', [k]);
    return this.hashes.get(k)?.get(f) ?? null;
  }

  async xrangeBuffer(k: string, start: string, _end: string, _c: string, count: number) {
    this.record('xrange', [k]);
    const after = start === '-' ? -1 : Number(start.slice(1, start.indexOf('-')));
    return (this.streams.get(k) ?? []).filter(([id]) => Number(id.toString().split('-')[0]) > after).slice(0, count);
  }

  async xrevrangeBuffer(k: string) {
    this.record('xrevrange', [k]);
    return (this.streams.get(k) ?? []).slice(-1);
  }

  /** No script is loaded: common/lease/lease.ts then sends it by EVAL. */
  async evalsha(_sha: string, n: number, ...args: string[]) {
    this.record('evalsha', args.slice(0, n));
    throw new Error('NOSCRIPT No matching script. Please use EVAL.');
  }

  async eval(script: string, n: number, ...args: string[]) {
    const keys = args.slice(0, n);
    this.record('eval', keys);
    const [k] = keys;
    if (script.includes("'archived'")) {
      const h = this.hashes.get(k!) ?? new Map<string, string>();
      this.hashes.set(k!, h);
      const cur = h.get('archived');
      if (cur === undefined || Number(cur) < Number(args[n])) h.set('archived', args[n]!);
      return 1;
    }
    // renew-leases.lua: one answer per key (all of one slot)
    if (/'pexpire'/i.test(script)) return keys.map((key) => (this.strings.get(key) === args[n] ? 1 : 0));
    if (/'del'/i.test(script)) return this.strings.get(k!) === args[n] && this.strings.delete(k!) ? 1 : 0;
    throw new Error('unknown script');
  }

  async set(k: string, v: string) {
    this.record('set', [k]);
    if (this.strings.has(k)) return null;
    this.strings.set(k, v);
    return 'OK';
  }

  async get(k: string) {
    this.record('get', [k]);
    return this.strings.get(k) ?? null;
  }

  async zrem(k: string) {
    this.record('zrem', [k]);
    return 1;
  }

  /** Appends a data batch of `n` records at `base` to a stream. */
  append(key: string, base: number, n: number) {
    const recs = Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`v${base + i}`), timestamp: 1_700_000_000_000 + base + i }));
    const b = encodeBatch(recs, { baseOffset: base });
    const list = this.streams.get(key) ?? [];
    list.push([Buffer.from(`${base}-1`), [Buffer.from('b'), b]]);
    this.streams.set(key, list);
  }
}

function logger(): Logger & { lines: { level: string; msg: string; fields?: Record<string, unknown> }[] } {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push({ level, msg, fields });
  return { lines, error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') } as Logger & { lines: typeof lines };
}

const nullStore = {} as ObjectStore;

function context(redis: FakeCluster, o: Partial<ArchiverConfig> = {}) {
  const keys = new Keys('rn', true);
  const log = logger();
  const config = loadConfig({}, { archiverId: 'a1', workers: 1, ...o });
  const ctx = {
    config,
    hooks: abortedTransactionFilter,
    keys,
    store: nullStore,
    redis: redis as unknown as RedisClient,
    pool: null,
    log,
    leases: new Leases(() => redis as unknown as RedisClient, keys, 'a1', 1500),
    stats: emptyStats(),
    topics: new Map<string, TopicArchiver>(),
    stopping: false,
    topicId: () => undefined,
    wakeUp: () => {},
  };
  // The fakes stand in for the real clients: typed as the archiver sees them, with the recording logger kept.
  return ctx as unknown as Omit<ArchiverContext, 'log'> & { log: typeof log };
}

function part(p: number, last = -1): PartState {
  return { partition: p, committed: last, base: last, last, epoch: 0, logEnd: null, pendingTs: [], stalled: false };
}

function topicRecord(partitions: number, placement?: unknown) {
  return JSON.stringify({ id: 'id-1', partitions, configs: {}, created: 1, ...(placement !== undefined ? { placement } : {}) });
}

describe('placement salts', () => {
  it('keys carry the salt of each partition; a missing or short placement means salt 0', () => {
    const k = new Keys('rn');
    expect(k.log('t', 1)).toBe('rn:p:{t/1}:log');
    k.place('t', [0, 5, 7]);
    expect(k.log('t', 0)).toBe('rn:p:{t/0}:log');
    expect(k.meta('t', 1)).toBe('rn:p:{t/1/5}:meta');
    expect(k.lease('t', 2)).toBe('rn:p:{t/2/7}:archiver-lease');
    expect(k.log('t', 3)).toBe('rn:p:{t/3}:log');
    // every key of a partition shares its slot
    expect(new Set(['log', 'meta', 'lease'].map((f) => calculateSlot((k as unknown as Record<string, (t: string, p: number) => string>)[f]!('t', 1))))).toEqual(
      new Set([calculateSlot('{t/1/5}')]),
    );
  });

  it('strict keys (cluster mode) refuse a topic whose record was not read', () => {
    const k = new Keys('rn', true);
    expect(() => k.log('t', 0)).toThrow(/no placement known for topic 't'/);
    k.place('t', undefined);
    expect(k.log('t', 0)).toBe('rn:p:{t/0}:log');
    k.forget('t');
    expect(() => k.meta('t', 0)).toThrow();
    k.strict = false;
    expect(k.meta('t', 0)).toBe('rn:p:{t/0}:meta');
  });

  it('parsePlacement: absent, valid, or unusable', () => {
    expect(parsePlacement(undefined)).toBeUndefined();
    expect(parsePlacement(null)).toBeUndefined();
    expect(parsePlacement([])).toEqual([]);
    expect(parsePlacement([0, 3, 12])).toEqual([0, 3, 12]);
    for (const bad of ['1,2', 3, {}, [1, -1], [1.5], ['1'], [null], [2 ** 60]]) expect(parsePlacement(bad)).toBeNull();
  });

  it('membership learns placement from rn:topics before naming any partition key', async () => {
    const redis = new FakeCluster();
    redis.hashes.set(
      'rn:topics',
      new Map([
        ['placed', topicRecord(4, [3, 0, 9])],
        ['legacy', topicRecord(2)],
        ['broken', topicRecord(2, 'x')],
        ['huge', topicRecord(2 ** 31 - 1, [])],
        ['__internal', topicRecord(1, [1])],
      ]),
    );
    const ctx = context(redis);
    const m = new Membership(ctx);
    await m.refreshTopics();
    expect(ctx.keys.log('placed', 0)).toBe('rn:p:{placed/0/3}:log');
    expect(ctx.keys.log('placed', 2)).toBe('rn:p:{placed/2/9}:log');
    expect(ctx.keys.log('placed', 3)).toBe('rn:p:{placed/3}:log');
    expect(ctx.keys.log('legacy', 1)).toBe('rn:p:{legacy/1}:log');
    // refused topics are never placed, so no key of theirs can be named in cluster mode
    expect(() => ctx.keys.log('broken', 0)).toThrow();
    expect(() => ctx.keys.log('huge', 0)).toThrow();
    expect(() => ctx.keys.log('__internal', 0)).toThrow();
    expect(m.topicId('placed')).toBe('id-1');
    expect(m.topicId('broken')).toBeUndefined();
    const errors = ctx.log.lines.filter((l) => l.level === 'error');
    expect(errors.map((l) => l.fields?.topic).sort()).toEqual(['broken', 'huge']);
    // refusals are logged once, not on every refresh
    await m.refreshTopics();
    expect(ctx.log.lines.filter((l) => l.level === 'error')).toHaveLength(2);

    // the placement of a deleted topic is forgotten unless its table is still loaded here
    ctx.topics.set('legacy', new TopicArchiver('legacy', nullStore, { write: async () => new Uint8Array(), read: async () => [] } as never));
    redis.hashes.get('rn:topics')!.delete('placed');
    redis.hashes.get('rn:topics')!.delete('legacy');
    await m.refreshTopics();
    expect(() => ctx.keys.log('placed', 0)).toThrow();
    expect(ctx.keys.log('legacy', 0)).toBe('rn:p:{legacy/0}:log');
    // a grown topic: new partitions get their salts from the new record, old ones keep theirs
    redis.hashes.get('rn:topics')!.set('placed', topicRecord(6, [3, 0, 9, 0, 4, 1]));
    await m.refreshTopics();
    expect(ctx.keys.log('placed', 0)).toBe('rn:p:{placed/0/3}:log');
    expect(ctx.keys.log('placed', 5)).toBe('rn:p:{placed/5/1}:log');
  });
});

describe('no command spans slots', () => {
  const salts = [4, 0, 17];

  function setup() {
    const redis = new FakeCluster();
    const ctx = context(redis, { readCount: 100 });
    ctx.keys.place('t', salts);
    const t = new TopicArchiver('t', nullStore, {} as never);
    for (let p = 0; p < 3; p++) t.parts.set(p, part(p));
    ctx.topics.set('t', t);
    return { redis, ctx, t };
  }

  it('pollOnce reads each partition with its own XRANGE, on its salted key; a failed read stops only its partition', async () => {
    const { redis, ctx, t } = setup();
    for (let p = 0; p < 3; p++) {
      redis.append(ctx.keys.log('t', p), 0, 3);
      redis.append(ctx.keys.log('t', p), 3, 2);
    }
    expect(await pollOnce(ctx)).toBe(6);
    const reads = redis.sent.filter((s) => s.cmd === 'xrange');
    expect(reads.map((s) => s.keys)).toEqual([['rn:p:{t/0/4}:log'], ['rn:p:{t/1}:log'], ['rn:p:{t/2/17}:log']]);
    for (const ps of t.parts.values()) expect(ps.last).toBe(4);
    expect(t.buf).toHaveLength(6);

    // partition 1's shard is away: partitions 0 and 2 still advance, then the error is reported
    for (const p of [0, 1, 2]) redis.append(ctx.keys.log('t', p), 5, 1);
    redis.failing.add(ctx.keys.log('t', 1));
    await expect(pollOnce(ctx)).rejects.toThrow(/CLUSTERDOWN/);
    expect([0, 1, 2].map((p) => t.parts.get(p)!.last)).toEqual([5, 4, 5]);
    redis.failing.clear();
    expect(await pollOnce(ctx)).toBe(1);
    expect(t.parts.get(1)!.last).toBe(5);
  });

  it('refreshLogEnds: one XREVRANGE per partition; a failed one leaves only its log end unknown', async () => {
    const { redis, ctx, t } = setup();
    for (let p = 0; p < 3; p++) redis.append(ctx.keys.log('t', p), 0, 2 + p);
    redis.failing.add(ctx.keys.log('t', 2));
    await refreshLogEnds(ctx);
    expect([0, 1, 2].map((p) => t.parts.get(p)!.logEnd)).toEqual([2, 3, null]);
    expect(redis.sent.filter((s) => s.cmd === 'xrevrange')).toHaveLength(3);
  });

  it('publishArchived: one script per partition meta key; every one is tried, then the failure is reported', async () => {
    const { redis, ctx } = setup();
    redis.failing.add(ctx.keys.meta('t', 0));
    await expect(
      publishArchived(ctx, 't', [
        { p: 0, v: 10 },
        { p: 1, v: 11 },
        { p: 2, v: 12 },
      ]),
    ).rejects.toThrow(/CLUSTERDOWN/);
    expect(redis.hashes.get('rn:p:{t/1}:meta')?.get('archived')).toBe('11');
    expect(redis.hashes.get('rn:p:{t/2/17}:meta')?.get('archived')).toBe('12');
    expect(redis.sent.filter((s) => s.cmd === 'eval').map((s) => s.keys)).toEqual([['rn:p:{t/0/4}:meta'], ['rn:p:{t/1}:meta'], ['rn:p:{t/2/17}:meta']]);
    // never lowered
    await publishArchived(ctx, 't', [{ p: 1, v: 3 }]);
    expect(redis.hashes.get('rn:p:{t/1}:meta')?.get('archived')).toBe('11');
  });

  it('leases: acquire, renew and release on salted keys, one command per slot; membership MULTI on one key', async () => {
    const { redis, ctx } = setup();
    const l = ctx.leases;
    expect(await l.heartbeat()).toEqual(['a1']);
    for (let p = 0; p < 3; p++) expect(await l.acquire('t', p)).toBe(true);
    redis.strings.set(ctx.keys.lease('t', 1), 'someone-else');
    redis.failing.add(ctx.keys.lease('t', 2));
    expect(await l.renew([0, 1, 2].map((p) => ({ topic: 't', p })))).toEqual([true, false, false]);
    redis.failing.clear();
    await l.release('t', 0);
    expect(redis.strings.has('rn:p:{t/0/4}:archiver-lease')).toBe(false);
    await l.leave();
    expect(redis.sent.find((s) => s.cmd === 'multi')?.keys).toEqual(['rn:archivers', 'rn:archivers', 'rn:archivers']);
    expect([...new Set(redis.sent.filter((s) => s.cmd === 'set').flatMap((s) => s.keys))]).toEqual([
      'rn:p:{t/0/4}:archiver-lease',
      'rn:p:{t/1}:archiver-lease',
      'rn:p:{t/2/17}:archiver-lease',
    ]);
  });
});

describe('the archiver Redis client', () => {
  const base = () => loadConfig({}, { archiverId: 'a1', workers: 1, lake: `file:///tmp/rn-arch-unit-never-written` });

  it('an injected Cluster client makes the keys strict; a single-node client does not', async () => {
    const c = new Cluster([{ host: '127.0.0.1', port: 1 }], { lazyConnect: true });
    const r = new Redis({ host: '127.0.0.1', port: 1, lazyConnect: true });
    const a = new Archiver(base(), undefined, { redis: c });
    const b = new Archiver(base(), undefined, { redis: r });
    try {
      expect(a.cluster).toBe(true);
      expect(a.keys.strict).toBe(true);
      expect(b.cluster).toBe(false);
      expect(b.keys.strict).toBe(false);
      expect(a.redis).toBe(c);
    } finally {
      for (const x of [a, b]) {
        await x.pool.close();
        await x.store.close();
      }
      c.disconnect();
      r.disconnect();
    }
  });

  it('redis.tls.* settings need a rediss:// URL: start() fails with RN3001 before connecting', async () => {
    const a = new Archiver({ ...base(), redisUrl: 'redis://127.0.0.1:1', redisTlsCaLocation: '/nonexistent/ca.pem' });
    await expect(a.start()).rejects.toThrow(/RN3001.*redis\.tls\.ca\.location/);
    expect(() => a.redis).toThrow(/not connected/);
    await a.stop({ flush: false });
  });

  it('an unreadable CA file with rediss:// is RN3001 too', async () => {
    const a = new Archiver({ ...base(), redisUrl: 'rediss://127.0.0.1:1', redisTlsCaLocation: '/nonexistent/ca.pem' });
    await expect(a.start()).rejects.toThrow(/RN3001.*cannot read \/nonexistent\/ca\.pem/);
    await a.stop({ flush: false });
  });

  it('a malformed seed list is RN3001', async () => {
    const a = new Archiver({ ...base(), redisUrl: 'redis://a:b@h1:1,redis://c:d@h2:2' });
    await expect(a.start()).rejects.toThrow(/RN3001.*RUNNEL_REDIS_URL/);
    await a.stop({ flush: false });
  });
});

describe('config: redis.tls.* as RUNNEL_REDIS_TLS_*', () => {
  it('reads the five settings', () => {
    const c = loadConfig({
      RUNNEL_REDIS_URL: 'rediss://u:p@h1:7000,h2:7000',
      RUNNEL_REDIS_TLS_CA_LOCATION: '/etc/ca.pem',
      RUNNEL_REDIS_TLS_CERT_LOCATION: '/etc/c.pem',
      RUNNEL_REDIS_TLS_KEY_LOCATION: '/etc/c.key',
      RUNNEL_REDIS_TLS_SERVERNAME: 'redis.internal',
      RUNNEL_REDIS_TLS_INSECURE_SKIP_VERIFY: 'true',
    });
    expect(c.redisUrl).toBe('rediss://u:p@h1:7000,h2:7000');
    expect(redisTlsSettings(c)).toEqual({
      caLocation: '/etc/ca.pem',
      certLocation: '/etc/c.pem',
      keyLocation: '/etc/c.key',
      servername: 'redis.internal',
      insecureSkipVerify: true,
    });
  });

  it('defaults to none, and refuses a non-boolean skip-verify', () => {
    expect(redisTlsSettings(loadConfig({}))).toEqual({ caLocation: '', certLocation: '', keyLocation: '', servername: '', insecureSkipVerify: false });
    expect(() => loadConfig({ RUNNEL_REDIS_TLS_INSECURE_SKIP_VERIFY: 'maybe' })).toThrow(/RN3001/);
  });
});
