// rediss:// and Redis ACL users against a real server: a redis-server (or
// valkey-server) with a TLS port only, client certificates required
// (`tls-auth-clients yes`), the default user off and one ACL user. The broker
// connects with `rediss://alice:s3cret@` and the redis.tls.* settings, serves
// a produce/consume round trip, and its appends take the zero-copy append
// connection, not the ioredis fallback: after the appends Redis lists a
// connection of the broker that did not exist before them and whose last
// command is EXEC, and the fence ran as EVALSHA (the fallback sends EVAL).
// Likewise Fetch takes the streaming read connection: after the consume Redis
// lists another new connection of the broker whose last command is XRANGE.
// The same check runs on a plain redis:// server with an ACL user. A wrong CA
// or a missing client certificate makes the broker exit non-zero at start
// with the reason, instead of retrying.
//
// Valkey 8 (Debian's valkey-server) is built with TLS, so this runs on both
// RUNNEL_TEST_BACKEND=redis and =valkey.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { ErrorCode } from '../../../common/errors.js';
import { buildBatch } from '../../helpers/batches.js';
import { readAll, wireCreateTopic, wireProduce } from '../../helpers/faults.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { makeTestPki, startTlsRedis, tlsCommands, type TestPki, type TlsRedisServer } from '../../helpers/redis-tls.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { WireClient } from '../../helpers/wire.js';

const USER = 'alice';
const PASSWORD = 's3cret';
const BATCHES = 20;
const PER_BATCH = 2;

type Query = (args: string[]) => Promise<unknown>;

interface ClientInfo { id: string; user: string; cmd: string; line: string }

/** CLIENT LIST, less the connection that asked. */
async function brokerClients(q: Query): Promise<ClientInfo[]> {
  const text = String(await q(['CLIENT', 'LIST']));
  return text.split('\n').filter((l) => l.trim()).map((line) => {
    const f = Object.fromEntries(line.trim().split(' ').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
    return { id: f.id ?? '', user: f.user ?? '', cmd: f.cmd ?? '', line };
  }).filter((c) => !/^client/.test(c.cmd));
}

async function commandCalls(q: Query): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const m of String(await q(['INFO', 'commandstats'])).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) out[m[1]!] = Number(m[2]);
  return out;
}

/**
 * Produces BATCHES batches (acks=1), reads them back with kcat, and checks
 * that the appends went over the append connection.
 */
async function roundTripOnFastPath(broker: RunnelBroker, q: Query, topic: string): Promise<void> {
  const before = await brokerClients(q);
  expect(before.length, `broker connections before any append:\n${before.map((c) => c.line).join('\n')}`).toBeGreaterThan(0);
  for (const c of before) expect(c.user).toBe(USER);
  const known = new Set(before.map((c) => c.id));
  const calls0 = await commandCalls(q);

  expect(await wireCreateTopic(broker.port, topic, 1)).toBe(0);
  const c = await WireClient.connect(broker.port);
  try {
    for (let b = 0; b < BATCHES; b++) {
      const records = Array.from({ length: PER_BATCH }, (_, i) => ({ key: Buffer.from(`k${b}`), value: Buffer.from(`v${b}.${i}`) }));
      const r = await wireProduce(c, topic, 0, buildBatch(records), 1);
      expect(r.errorCode, r.errorMessage ?? '').toBe(ErrorCode.NONE);
      expect(r.baseOffset).toBe(b * PER_BATCH);
    }
  } finally {
    c.close();
  }

  const calls1 = await commandCalls(q);
  const after = await brokerClients(q);
  // The append connection: opened by the appends (lazily), authenticated as the ACL user, last command EXEC.
  const appenders = after.filter((x) => !known.has(x.id) && x.cmd === 'exec');
  expect(appenders.map((x) => x.user), `no new broker connection whose last command is EXEC: appends did not take the append connection\nbefore:\n${before.map((x) => x.line).join('\n')}\nafter:\n${after.map((x) => x.line).join('\n')}`).toEqual([USER]);
  // The fence ran as EVALSHA once per batch; the ioredis fallback would have sent EVAL.
  const delta = (cmd: string): number => (calls1[cmd] ?? 0) - (calls0[cmd] ?? 0);
  expect(delta('evalsha')).toBeGreaterThanOrEqual(BATCHES);
  expect(delta('eval'), 'EVAL calls during the appends (the ioredis fallback path)').toBeLessThan(BATCHES);
  expect(delta('exec')).toBeGreaterThanOrEqual(BATCHES);

  const read = await readAll(broker.bootstrap, topic);
  expect(read.map((r) => [r.offset, r.key, r.value])).toEqual(
    Array.from({ length: BATCHES * PER_BATCH }, (_, o) => [o, `k${Math.floor(o / PER_BATCH)}`, `v${Math.floor(o / PER_BATCH)}.${o % PER_BATCH}`]),
  );
  // Fetch took the streaming read connection: opened by the reads, authenticated as the ACL user, last command XRANGE.
  const afterReads = await brokerClients(q);
  const seen = new Set([...known, ...appenders.map((x) => x.id)]);
  const readers = afterReads.filter((x) => !seen.has(x.id) && x.cmd === 'xrange');
  expect(readers.map((x) => x.user), `no new broker connection whose last command is XRANGE: fetches did not take the read connection\n${afterReads.map((x) => x.line).join('\n')}`).toEqual([USER]);
}

describe('rediss:// with client certificates and an ACL user', () => {
  let pki: TestPki;
  let redis: TlsRedisServer;
  const brokers: RunnelBroker[] = [];
  const tlsArgs = (ca: string): string[] => [
    '--set', `redis.tls.ca.location=${ca}`,
    '--set', `redis.tls.cert.location=${pki.clientCert}`,
    '--set', `redis.tls.key.location=${pki.clientKey}`,
  ];

  beforeAll(async () => {
    pki = await makeTestPki();
    redis = await startTlsRedis({ pki, users: [{ name: USER, password: PASSWORD }] });
  });
  afterAll(async () => {
    for (const b of brokers) await b.stop();
    await redis?.stop();
    if (pki && process.env.RUNNEL_TEST_KEEP !== '1') fs.rmSync(pki.dir, { recursive: true, force: true });
  });

  it('the server refuses what the broker must not rely on: no client certificate, no credentials, a wrong password', async () => {
    const noAuth = await tlsCommands({ port: redis.port, pki }, [['PING']]);
    expect(String(noAuth[0])).toMatch(/NOAUTH/);
    const wrong = await tlsCommands({ port: redis.port, pki }, [['AUTH', USER, 'nope']]);
    expect(String(wrong[0])).toMatch(/WRONGPASS/);
    expect(await redis.command(['ACL', 'WHOAMI'])).toBe(USER);
  });

  it('produce/consume round trip; appends take the TLS append connection', async () => {
    // the tail cache off: the consume must read from Redis, over the read connection this test checks
    const broker = await startRunnel({ redisUrl: redis.url(USER, PASSWORD), args: [...tlsArgs(pki.caCert), '--set', 'key.prefix=tls', '--set', 'log.tail.cache.bytes=0'] });
    brokers.push(broker);
    await roundTripOnFastPath(broker, (args) => redis.command(args), 'tls-round-trip');
    // The password never reaches the log.
    const output = broker.proc().tail(1_000_000).split('\n').filter((l) => !l.startsWith('# ')).join('\n');
    expect(output).not.toContain(PASSWORD);
  });

  it('a CA that did not sign the server certificate: the broker exits non-zero at start, saying why', async () => {
    const started = Date.now();
    const err = await startRunnel({ redisUrl: redis.url(USER, PASSWORD), args: [...tlsArgs(pki.otherCaCert), '--set', 'key.prefix=badca'], startTimeoutMs: 30_000 })
      .then((b) => { brokers.push(b); return null; }, (e: unknown) => e as Error);
    expect(err, 'the broker started with a CA that did not sign the server certificate').toBeInstanceOf(Error);
    expect(err!.message).toMatch(/exited \(code 1,/);
    expect(err!.message).toMatch(/redis TLS handshake failed: .*certificate/);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('no client certificate while the server requires one: the broker exits non-zero at start', async () => {
    const err = await startRunnel({ redisUrl: redis.url(USER, PASSWORD), args: ['--set', `redis.tls.ca.location=${pki.caCert}`, '--set', 'key.prefix=nocert'], startTimeoutMs: 30_000 })
      .then((b) => { brokers.push(b); return null; }, (e: unknown) => e as Error);
    expect(err, 'the broker started without a client certificate').toBeInstanceOf(Error);
    expect(err!.message).toMatch(/exited \(code 1,/);
    expect(err!.message).toMatch(/redis TLS handshake failed/);
  });
});

describe('redis:// with an ACL user (plain text)', () => {
  let redis: RedisServer;
  let admin: Redis;
  let broker: RunnelBroker | undefined;
  beforeAll(async () => {
    redis = await startRedis();
    expect(await redis.command(`ACL SETUSER ${USER} on >${PASSWORD} ~* &* +@all`)).toMatch(/OK/);
    expect(await redis.command('ACL SETUSER default off')).toMatch(/OK/);
    expect(await redis.command('PING')).toMatch(/NOAUTH/);
    admin = new Redis(`redis://${USER}:${PASSWORD}@127.0.0.1:${redis.port}`, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await admin.connect();
  });
  afterAll(async () => {
    await broker?.stop();
    admin?.disconnect();
    await redis?.stop();
  });

  it('produce/consume round trip; appends take the append connection, authenticated as the ACL user', async () => {
    broker = await startRunnel({ redisUrl: `redis://${USER}:${PASSWORD}@127.0.0.1:${redis.port}`, args: ['--set', 'key.prefix=acl', '--set', 'log.tail.cache.bytes=0'] }); // reads from Redis (no tail cache)
    await roundTripOnFastPath(broker, (args) => admin.call(args[0]!, ...args.slice(1)), 'acl-round-trip');
  });

  it('redis.tls.* settings with a redis:// URL are refused, not ignored', async () => {
    const err = await startRunnel({ redisUrl: `redis://${USER}:${PASSWORD}@127.0.0.1:${redis.port}`, args: ['--set', 'redis.tls.ca.location=/nonexistent.pem'], startTimeoutMs: 30_000 })
      .then(async (b) => { await b.stop(); return null; }, (e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toMatch(/redis\.tls\.\* settings need a rediss:\/\/ redis\.url \(set: redis\.tls\.ca\.location\)/);
  });
});
