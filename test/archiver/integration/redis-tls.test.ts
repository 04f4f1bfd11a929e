// The archiver against a redis-server (valkey-server) that listens on TLS only,
// requires client certificates and has an ACL user instead of the default user:
// rediss://user:pass@ with RUNNEL_REDIS_TLS_{CA,CERT,KEY}_LOCATION archives;
// a server certificate from another CA, or a wrong password, stops the
// archiver at start with the reason.
import fs from 'node:fs';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestPki, startTlsRedis, type TestPki, type TlsRedisServer } from '../../helpers/redis-tls.js';
import {
  archiverEnv,
  checkTable,
  createTopic,
  ensureBuilt,
  newProducer,
  produce,
  readDelta,
  spawnArchiver,
  testBackend,
  tmpDir,
  waitArchived,
} from './helpers.js';

const USER = { name: 'archiver', password: 'p@ss word:1' };
let pki: TestPki;
let server: TlsRedisServer;
let client: Redis;
const dirs: string[] = [];

beforeAll(async () => {
  await ensureBuilt();
  const pkiDir = tmpDir('pki');
  dirs.push(pkiDir);
  pki = await makeTestPki(pkiDir);
  server = await startTlsRedis({ pki, users: [USER], flavor: testBackend().flavor });
  client = new Redis(server.url(USER.name, USER.password), {
    tls: { ca: fs.readFileSync(pki.caCert), cert: fs.readFileSync(pki.clientCert), key: fs.readFileSync(pki.clientKey) },
    maxRetriesPerRequest: 2,
  });
  client.on('error', () => {});
});

afterAll(async () => {
  client?.disconnect();
  await server?.stop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const tlsEnv = (o: { url: string; ca?: string; lake: string }) =>
  archiverEnv({
    redisUrl: o.url,
    lake: o.lake,
    extra: {
      RUNNEL_REDIS_TLS_CA_LOCATION: o.ca ?? pki.caCert,
      RUNNEL_REDIS_TLS_CERT_LOCATION: pki.clientCert,
      RUNNEL_REDIS_TLS_KEY_LOCATION: pki.clientKey,
      RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '200',
    },
  });

describe('archiver over rediss:// with an ACL user and a client certificate', () => {
  it('archives every record', async () => {
    const topic = 'secure';
    const dir = tmpDir('tls-lake');
    dirs.push(dir);
    const prod = newProducer();
    await createTopic(client, topic, 2);
    for (let p = 0; p < 2; p++) await produce(client, prod, topic, p, 10, 4);
    const a = spawnArchiver(tlsEnv({ url: server.url(USER.name, USER.password), lake: `file://${dir}` }));
    try {
      await waitArchived(client, topic, prod, 30_000);
      expect(a.log.some((l) => l.includes('"tls":true'))).toBe(true);
    } finally {
      await a.kill('SIGTERM');
    }
    checkTable(await readDelta(`file://${dir}/${topic}`, { appIds: [0, 1].map((p) => `runnel/${topic}/${p}`) }), topic, 2, prod);
  });

  it('a server certificate from another CA stops the archiver at start (RN3001)', async () => {
    const dir = tmpDir('tls-lake-bad');
    dirs.push(dir);
    const t0 = Date.now();
    const a = spawnArchiver(tlsEnv({ url: server.url(USER.name, USER.password), ca: pki.otherCaCert, lake: `file://${dir}` }));
    expect(await Promise.race([a.exited, new Promise((r) => setTimeout(() => r('still running'), 20_000))])).toBe(1);
    const line = a.log.find((l) => l.includes('archiver cannot start')) ?? a.log.join('\n');
    expect(line).toMatch(/RN3001.*(certificate|TLS)/i);
    // at once: a refused certificate is not waited out (RUNNEL_REDIS_CONNECTION_TIMEOUT_MS, 10 s by default)
    expect(Date.now() - t0).toBeLessThan(8_000);
    expect(a.log.some((l) => l.includes('waiting for redis'))).toBe(false);
  });

  it('a wrong password stops the archiver at start', async () => {
    const dir = tmpDir('tls-lake-pw');
    dirs.push(dir);
    const t0 = Date.now();
    const a = spawnArchiver(tlsEnv({ url: server.url(USER.name, 'wrong'), lake: `file://${dir}` }));
    expect(await Promise.race([a.exited, new Promise((r) => setTimeout(() => r('still running'), 20_000))])).toBe(1);
    expect(a.log.find((l) => l.includes('archiver cannot start')) ?? a.log.join('\n')).toMatch(/WRONGPASS|invalid username-password/i);
    // at once: a refused password is not waited out
    expect(Date.now() - t0).toBeLessThan(8_000);
    expect(a.log.some((l) => l.includes('waiting for redis'))).toBe(false);
  });
});
