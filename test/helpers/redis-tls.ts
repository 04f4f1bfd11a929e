// A throwaway PKI (openssl CLI) and a redis-server/valkey-server that listens
// on a TLS port only, for the rediss:// tests.
//
//   const pki = await makeTestPki(dir);          // ca, server and client certs (PEM files)
//   const r = await startTlsRedis({ pki, users: [...] });
//   r.url('alice', 's3cret') -> rediss://alice:s3cret@127.0.0.1:<tls port>
//   await r.command(['INFO', 'commandstats']);   // over TLS, as the first user
//   await r.stop();
//
// test/helpers/redis.ts probes readiness with a plain-text PING on its plain
// port; a server started with `--port 0` has none, hence this helper.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { backendFromEnv, type RedisFlavor } from './redis.js';
import { freePort, HOST, runCommand, spawnManaged, waitFor, type ManagedProcess } from './procs.js';

export interface TestPki {
  dir: string;
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** A second, unrelated CA: a client trusting only this one must refuse the server. */
  otherCaCert: string;
}

async function openssl(dir: string, args: string[]): Promise<void> {
  const r = await runCommand('openssl', args, { cwd: dir, timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`openssl ${args.join(' ')} failed (code ${r.code}): ${r.stderr}`);
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/**
 * Issues a leaf certificate in `dir`: `<name>.key` and `<name>.crt`, signed by
 * `ca` (`ca` or `other-ca` of makeTestPki), valid for 2 days. Server certs
 * carry SAN IP:127.0.0.1, DNS:localhost. `subject` in openssl's form
 * ("/C=US/O=org/OU=eng/CN=alice").
 */
export async function issueCert(dir: string, o: { name: string; subject: string; usage: 'server' | 'client'; ca?: 'ca' | 'other-ca' }): Promise<{ cert: string; key: string }> {
  const ext = `${o.name}.ext`;
  fs.writeFileSync(path.join(dir, ext), o.usage === 'server'
    ? 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n'
    : 'extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n');
  const ca = o.ca ?? 'ca';
  await openssl(dir, ['req', ...EC_KEY, '-keyout', `${o.name}.key`, '-out', `${o.name}.csr`, '-subj', o.subject]);
  await openssl(dir, ['x509', '-req', '-in', `${o.name}.csr`, '-CA', `${ca}.crt`, '-CAkey', `${ca}.key`, '-CAcreateserial', '-out', `${o.name}.crt`, '-days', '2', '-extfile', ext]);
  return { cert: path.join(dir, `${o.name}.crt`), key: path.join(dir, `${o.name}.key`) };
}

/** CA, server cert (SAN IP:127.0.0.1, DNS:localhost) and client cert, all P-256, valid for 2 days. */
export async function makeTestPki(dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-pki-'))): Promise<TestPki> {
  const caExt = ['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'];
  for (const ca of ['ca', 'other-ca']) {
    await openssl(dir, ['req', '-x509', ...EC_KEY, '-keyout', `${ca}.key`, '-out', `${ca}.crt`, '-days', '2', '-subj', `/CN=runnel test ${ca}`, ...caExt]);
  }
  const server = await issueCert(dir, { name: 'server', subject: '/CN=runnel test server', usage: 'server' });
  const client = await issueCert(dir, { name: 'client', subject: '/CN=runnel test client', usage: 'client' });
  const f = (n: string): string => path.join(dir, n);
  return { dir, caCert: f('ca.crt'), serverCert: server.cert, serverKey: server.key, clientCert: client.cert, clientKey: client.key, otherCaCert: f('other-ca.crt') };
}

export interface TlsRedisUser { name: string; password: string }

export interface StartTlsRedisOptions {
  pki: TestPki;
  flavor?: RedisFlavor;
  /** ACL users with every permission; the default user is switched off, so nothing unauthenticated works. */
  users: TlsRedisUser[];
  /** Default true: clients must present a certificate signed by the CA. */
  authClients?: boolean;
  args?: string[];
}

export interface TlsRedisServer {
  flavor: RedisFlavor;
  host: string;
  /** The TLS port (the server has no plain-text port). */
  port: number;
  dir: string;
  url(user: string, password: string): string;
  proc(): ManagedProcess;
  /** One command over TLS, authenticated as the first user; resolves with the parsed reply. */
  command(args: string[]): Promise<unknown>;
  stop(): Promise<void>;
}

type Reply = string | number | null | Error | Reply[];

function parse(b: Buffer, at: number): { v: Reply; next: number } | null {
  const eol = b.indexOf('\r\n', at);
  if (eol < 0) return null;
  const line = b.toString('utf8', at + 1, eol);
  const after = eol + 2;
  switch (b[at]) {
    case 0x2b: return { v: line, next: after };
    case 0x2d: return { v: new Error(line), next: after };
    case 0x3a: return { v: Number(line), next: after };
    case 0x24: {
      const n = Number(line);
      if (n < 0) return { v: null, next: after };
      return b.length < after + n + 2 ? null : { v: b.toString('utf8', after, after + n), next: after + n + 2 };
    }
    case 0x2a: {
      const n = Number(line);
      const items: Reply[] = [];
      let next = after;
      for (let i = 0; i < Math.max(n, 0); i++) {
        const item = parse(b, next);
        if (!item) return null;
        items.push(item.v);
        next = item.next;
      }
      return { v: n < 0 ? null : items, next };
    }
    default: throw new Error(`unexpected reply ${b.toString('utf8', at, at + 20)}`);
  }
}

/** Sends `cmds` over one TLS connection and resolves with their replies (no pipelining subtleties: all sent at once). */
export function tlsCommands(o: { port: number; pki: TestPki; ca?: string }, cmds: string[][], timeoutMs = 5000): Promise<Reply[]> {
  return new Promise((resolve, reject) => {
    const s = tls.connect({
      host: HOST, port: o.port,
      ca: fs.readFileSync(o.ca ?? o.pki.caCert), cert: fs.readFileSync(o.pki.clientCert), key: fs.readFileSync(o.pki.clientKey),
    });
    let buf = Buffer.alloc(0);
    const out: Reply[] = [];
    const done = (e: Error | null): void => {
      s.removeAllListeners();
      s.destroy();
      if (e) reject(e);
      else resolve(out);
    };
    s.setTimeout(timeoutMs, () => done(new Error(`TLS redis ${o.port} timed out`)));
    s.once('error', done);
    s.once('secureConnect', () => {
      for (const c of cmds) s.write(`*${c.length}\r\n${c.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`);
    });
    s.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        const r = parse(buf, 0);
        if (!r) return;
        out.push(r.v);
        buf = buf.subarray(r.next);
        if (out.length === cmds.length) return done(null);
      }
    });
  });
}

export async function startTlsRedis(opts: StartTlsRedisOptions): Promise<TlsRedisServer> {
  const flavor = opts.flavor ?? backendFromEnv();
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `runnel-${flavor}-tls-`));
  const first = opts.users[0];
  if (!first) throw new Error('startTlsRedis needs at least one user');
  const args = [
    '--port', '0',
    '--tls-port', String(port),
    '--bind', HOST,
    '--tls-cert-file', opts.pki.serverCert,
    '--tls-key-file', opts.pki.serverKey,
    '--tls-ca-cert-file', opts.pki.caCert,
    '--tls-auth-clients', opts.authClients === false ? 'no' : 'yes',
    '--dir', dir,
    '--save', '',
    '--appendonly', 'yes',
    '--daemonize', 'no',
    '--logfile', '',
    '--protected-mode', 'no',
    '--user', 'default', 'off',
    ...opts.users.flatMap((u) => ['--user', u.name, 'on', `>${u.password}`, '~*', '&*', '+@all']),
    ...(opts.args ?? []),
  ];
  const proc = spawnManaged(`${flavor}-tls-${port}`, flavor === 'valkey' ? 'valkey-server' : 'redis-server', args);
  const command = async (cmd: string[]): Promise<unknown> => {
    const [auth, reply] = await tlsCommands({ port, pki: opts.pki }, [['AUTH', first.name, first.password], cmd]);
    if (auth instanceof Error) throw auth;
    return reply;
  };
  await waitFor(`${flavor} TLS PONG on ${port}`, async () => (await command(['PING'])) === 'PONG', { proc, timeoutMs: 60_000, intervalMs: 100 });
  let stopped = false;
  return {
    flavor,
    host: HOST,
    port,
    dir,
    url: (user, password) => `rediss://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${HOST}:${port}`,
    proc: () => proc,
    command,
    async stop() {
      if (stopped) return;
      stopped = true;
      await proc.stop(15_000);
      if (process.env.RUNNEL_TEST_KEEP !== '1') fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
