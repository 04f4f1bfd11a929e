// Kafka listeners and TLS against a real broker and redis-server: one broker
// with three listeners, PLAINTEXT, SSL (no client auth, ephemeral port 0) and
// MTLS (protocol SSL, listener.name.mtls.ssl.client.auth=required), certificates
// made with openssl. Real clients: kcat (librdkafka) and Kafka's Java console
// producer/consumer.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { freePort, HOST, runCommand, waitFor } from '../../helpers/procs.js';
import { issueCert, makeTestPki, type TestPki } from '../../helpers/redis-tls.js';
import { runJava } from '../../helpers/java.js';

let redis: RedisServer;
let broker: RunnelBroker;
let pki: TestPki;
let plainPort: number;
let sslPort: number;
let mtlsPort: number;
let keystore: string;

/** kcat over TLS to `port`, trusting `ca`, optionally with a client certificate. */
function kcat(port: number, args: string[], o: { ca?: string; cert?: boolean; input?: string } = {}) {
  const tls = ['-X', 'security.protocol=ssl', '-X', `ssl.ca.location=${o.ca ?? pki.caCert}`,
    ...(o.cert ? ['-X', `ssl.certificate.location=${pki.clientCert}`, '-X', `ssl.key.location=${pki.clientKey}`] : [])];
  return runCommand('kcat', ['-b', `${HOST}:${port}`, ...tls, ...args], { input: o.input, timeoutMs: 30_000 });
}

/** kcat -L -J: the brokers a listener advertises, as "id=host:port". */
async function advertised(port: number, tlsOpts: { ca?: string; cert?: boolean } | null): Promise<string[]> {
  const r = tlsOpts ? await kcat(port, ['-L', '-J', '-m', '10'], tlsOpts) : await runCommand('kcat', ['-b', `${HOST}:${port}`, '-L', '-J', '-m', '10'], { timeoutMs: 30_000 });
  expect(r.code, r.stderr).toBe(0);
  const md = JSON.parse(r.stdout) as { brokers: Array<{ id: number; name: string }> };
  return md.brokers.map((b) => `${b.id}=${b.name}`);
}

beforeAll(async () => {
  pki = await makeTestPki();
  keystore = path.join(pki.dir, 'keystore.pem');
  fs.writeFileSync(keystore, fs.readFileSync(pki.serverKey, 'utf8') + fs.readFileSync(pki.serverCert, 'utf8'));
  redis = await startRedis();
  plainPort = await freePort();
  mtlsPort = await freePort();
  broker = await startRunnel({
    redisUrl: redis.url,
    port: plainPort,
    args: [
      '--set', `listeners=PLAINTEXT://${HOST}:${plainPort},SSL://${HOST}:0,MTLS://${HOST}:${mtlsPort}`,
      '--set', 'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL',
      '--set', 'ssl.keystore.type=PEM',
      '--set', `ssl.keystore.location=${keystore}`,
      '--set', 'listener.name.mtls.ssl.client.auth=required',
      '--set', 'listener.name.mtls.ssl.truststore.type=PEM',
      '--set', `listener.name.mtls.ssl.truststore.location=${pki.caCert}`,
      '--set', 'ssl.reload.interval.ms=200',
      '--set', 'group.initial.rebalance.delay.ms=0',
    ],
  });
  // SSL listens on port 0: its bound port is in the start line ("listeners":"PLAINTEXT://...,SSL://127.0.0.1:<port>,...")
  const bound = (): RegExpExecArray | null => /"listeners":"[^"]*,SSL:\/\/127\.0\.0\.1:(\d+)/.exec(broker.proc().tail());
  await waitFor('the listeners start line', () => bound() !== null, { proc: broker.proc(), timeoutMs: 10_000, intervalMs: 50 });
  sslPort = Number(bound()![1]);
});

afterAll(async () => {
  await broker?.stop();
  await redis?.stop();
  if (pki) fs.rmSync(pki.dir, { recursive: true, force: true });
});

describe('listeners and TLS', () => {
  it("Metadata on each listener advertises that listener's address (port 0: the bound port); a broker without the listener is left out", async () => {
    expect(sslPort).toBeGreaterThan(0);
    expect(await advertised(plainPort, null)).toEqual([`1=${HOST}:${plainPort}`]);
    expect(await advertised(sslPort, {})).toEqual([`1=${HOST}:${sslPort}`]);
    expect(await advertised(mtlsPort, { cert: true })).toEqual([`1=${HOST}:${mtlsPort}`]);
    // broker 2 has a PLAINTEXT listener only: listed on PLAINTEXT, not on SSL
    const second = await startRunnel({ redisUrl: redis.url, args: ['--node-id', '2'] });
    try {
      await waitFor('broker 2 in Metadata', async () => (await advertised(plainPort, null)).length === 2, { timeoutMs: 10_000, intervalMs: 100 });
      expect(await advertised(plainPort, null)).toEqual([`1=${HOST}:${plainPort}`, `2=${HOST}:${second.port}`]);
      expect(await advertised(sslPort, {})).toEqual([`1=${HOST}:${sslPort}`]);
    } finally {
      await second.stop();
    }
    await waitFor('broker 2 gone', async () => (await advertised(plainPort, null)).length === 1, { timeoutMs: 10_000, intervalMs: 100 });
  });

  it('kcat produces and consumes over SSL', async () => {
    const p = await kcat(sslPort, ['-P', '-t', 'tls-kcat', '-K:'], { input: 'a:1\nb:2\nc:3\n' });
    expect(p.code, p.stderr).toBe(0);
    const c = await kcat(sslPort, ['-C', '-t', 'tls-kcat', '-e', '-o', 'beginning', '-q', '-f', '%k=%s\n']);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout.trim().split('\n')).toEqual(['a=1', 'b=2', 'c=3']);
  });

  it("Kafka's Java console producer and consumer over SSL (security.protocol=SSL, PEM truststore)", async () => {
    const props = path.join(pki.dir, 'client-ssl.properties');
    fs.writeFileSync(props, `security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location=${pki.caCert}\n`);
    const bootstrap = `${HOST}:${sslPort}`;
    // both at once (two JVM starts cost seconds): the consumer reads from the beginning until it has the three records
    const [prod, cons] = await Promise.all([
      runJava('org.apache.kafka.tools.ConsoleProducer', ['--bootstrap-server', bootstrap, '--topic', 'tls-java', '--command-config', props], { input: 'one\ntwo\nthree\n', timeoutMs: 60_000 }),
      runJava('org.apache.kafka.tools.consumer.ConsoleConsumer', ['--bootstrap-server', bootstrap, '--topic', 'tls-java', '--from-beginning',
        '--max-messages', '3', '--timeout-ms', '20000', '--command-config', props], { timeoutMs: 60_000 }),
    ]);
    expect(prod.code, prod.stderr.slice(-3000)).toBe(0);
    expect(cons.code, cons.stderr.slice(-3000)).toBe(0);
    expect(cons.stdout.trim().split('\n')).toEqual(['one', 'two', 'three']);
  });

  it('a client that does not trust the server certificate refuses it', async () => {
    const r = await kcat(sslPort, ['-L', '-m', '2'], { ca: pki.otherCaCert });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/certificate verify failed|SSL handshake failed/);
  });

  it('ssl.client.auth=required (per listener): kcat without a certificate is refused, with one accepted', async () => {
    const without = await kcat(mtlsPort, ['-L', '-m', '2']);
    expect(without.code).not.toBe(0);
    expect(without.stderr).toMatch(/SSL|handshake|alert|Disconnected/i);
    const withCert = await kcat(mtlsPort, ['-L', '-m', '10'], { cert: true });
    expect(withCert.code, withCert.stderr).toBe(0);
    expect(withCert.stdout).toContain(`broker 1 at ${HOST}:${mtlsPort}`);
  });

  it('replaced certificate files are used for new connections without a restart', async () => {
    const next = await issueCert(pki.dir, { name: 'server2', subject: '/CN=runnel test server 2', usage: 'server', ca: 'other-ca' });
    fs.writeFileSync(`${keystore}.new`, fs.readFileSync(next.key, 'utf8') + fs.readFileSync(next.cert, 'utf8'));
    fs.renameSync(`${keystore}.new`, keystore);
    // ssl.reload.interval.ms=200: soon only clients trusting the other CA get in
    await waitFor('SSL listener serving the new certificate', async () => (await kcat(sslPort, ['-L', '-m', '1'], { ca: pki.otherCaCert })).code === 0, { timeoutMs: 10_000, intervalMs: 100 });
    const old = await kcat(sslPort, ['-L', '-m', '2']);
    expect(old.code).not.toBe(0);
  });
});
