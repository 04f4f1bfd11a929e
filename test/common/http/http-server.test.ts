// The HTTP endpoint shared by the broker and the archiver: the address it
// binds, bearer / basic authentication (every path but /health), TLS from a
// PEM keystore (encrypted key, client certificates), and the settings it
// refuses. Certificates come from openssl at run time (test/helpers/redis-tls.ts).
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Counter, Registry } from 'prom-client';
import { authorized, startHttp, type RunningHttp } from '../../../common/http/http-server.js';
import { HttpConfigError, httpsOptions, type HttpSettings } from '../../../common/http/http-settings.js';
import { makeTestPki, type TestPki } from '../../helpers/redis-tls.js';
import { runCommand } from '../../helpers/procs.js';

const base: HttpSettings = {
  host: '127.0.0.1', port: 0, bearerToken: '', basicUser: '', basicPassword: '',
  keystoreLocation: '', keyPassword: '', truststoreLocation: '', clientAuth: 'none',
};

interface Reply { status: number; body: string; headers: http.IncomingHttpHeaders }

function get(url: string, opts: https.RequestOptions = {}): Promise<Reply> {
  const mod = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.get(url, { ...opts, timeout: 5_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

function registry(): Registry {
  const r = new Registry();
  new Counter({ name: 'test_things_total', help: 'things', registers: [r] }).inc(3);
  return r;
}

const running: RunningHttp[] = [];
async function serve(s: Partial<HttpSettings>, ready = true): Promise<RunningHttp> {
  const h = await startHttp({ ...base, ...s }, { ready: async () => ready, registry: registry() });
  running.push(h);
  return h;
}

let pki: TestPki;
let keystore: string;
let encrypted: string;

beforeAll(async () => {
  pki = await makeTestPki();
  keystore = path.join(pki.dir, 'server-keystore.pem');
  fs.writeFileSync(keystore, fs.readFileSync(pki.serverKey, 'utf8') + fs.readFileSync(pki.serverCert, 'utf8'));
  const encKey = path.join(pki.dir, 'server-enc.key');
  const r = await runCommand('openssl', ['pkey', '-in', pki.serverKey, '-aes256', '-passout', 'pass:Kp-4411', '-out', encKey], { timeoutMs: 20_000 });
  expect(r.code, r.stderr).toBe(0);
  encrypted = path.join(pki.dir, 'server-enc-keystore.pem');
  fs.writeFileSync(encrypted, fs.readFileSync(encKey, 'utf8') + fs.readFileSync(pki.serverCert, 'utf8'));
}, 60_000);

afterAll(async () => {
  for (const h of running) await h.close();
  if (pki) fs.rmSync(pki.dir, { recursive: true, force: true });
});

describe('HTTP endpoint: paths', () => {
  it('serves /health, /ready (503 when not ready) and the registry on /metrics in the Prometheus text format', async () => {
    const h = await serve({});
    expect(await get(`http://127.0.0.1:${h.port}/health`)).toMatchObject({ status: 200, body: '{"status":"ok"}' });
    expect((await get(`http://127.0.0.1:${h.port}/ready`)).status).toBe(200);
    const m = await get(`http://127.0.0.1:${h.port}/metrics`);
    expect(m.status).toBe(200);
    expect(m.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(m.body).toContain('# TYPE test_things_total counter\ntest_things_total 3\n');
    const down = await serve({}, false);
    expect((await get(`http://127.0.0.1:${down.port}/ready`)).status).toBe(503);
  });
});

describe('HTTP endpoint: bind address', () => {
  // A non-loopback IPv4 address of this machine, to show what a loopback bind does not answer.
  const external = Object.values(os.networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal)?.address;

  it('binds 127.0.0.1 by default: not reachable on the machine\'s other addresses', async () => {
    const h = await serve({});
    expect((await get(`http://127.0.0.1:${h.port}/health`)).status).toBe(200);
    if (!external) return; // a machine with loopback only: nothing else to reach (the bind address is still checked below)
    await expect(get(`http://${external}:${h.port}/health`)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('binds the configured host (0.0.0.0: every interface)', async () => {
    const h = await serve({ host: '0.0.0.0' });
    expect((await get(`http://127.0.0.1:${h.port}/health`)).status).toBe(200);
    if (external) expect((await get(`http://${external}:${h.port}/health`)).status).toBe(200);
  });
});

describe('HTTP endpoint: authentication', () => {
  it('bearer token: /metrics and unknown paths need it (401 with a Bearer challenge); the probes /health and /ready stay open', async () => {
    const h = await serve({ bearerToken: 'tok-7781' });
    const url = (p: string) => `http://127.0.0.1:${h.port}${p}`;
    expect((await get(url('/health'))).status).toBe(200);
    expect((await get(url('/ready'))).status).toBe(200);
    for (const p of ['/metrics', '/nope']) {
      const r = await get(url(p));
      expect(r.status, p).toBe(401);
      expect(r.headers['www-authenticate']).toBe('Bearer realm="runnel"');
      expect(r.body).not.toContain('test_things_total');
    }
    expect((await get(url('/metrics'), { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await get(url('/metrics'), { headers: { authorization: 'Bearer tok-7781x' } })).status).toBe(401);
    expect((await get(url('/metrics'), { headers: { authorization: basic('tok-7781', '') } })).status).toBe(401);
    const ok = await get(url('/metrics'), { headers: { authorization: 'Bearer tok-7781' } });
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('test_things_total 3');
    expect((await get(url('/ready'), { headers: { authorization: 'bearer tok-7781' } })).status).toBe(200);
  });

  it('basic auth: user and password must both match', async () => {
    const h = await serve({ basicUser: 'prom', basicPassword: 'p:w@1' });
    const url = `http://127.0.0.1:${h.port}/metrics`;
    const none = await get(url);
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Basic realm="runnel", charset="UTF-8"');
    expect((await get(url, { headers: { authorization: basic('prom', 'wrong') } })).status).toBe(401);
    expect((await get(url, { headers: { authorization: basic('other', 'p:w@1') } })).status).toBe(401);
    expect((await get(url, { headers: { authorization: 'Bearer p:w@1' } })).status).toBe(401);
    expect((await get(url, { headers: { authorization: basic('prom', 'p:w@1') } })).status).toBe(200);
  });

  it('with both configured, either credential is accepted', async () => {
    const h = await serve({ bearerToken: 't1', basicUser: 'u', basicPassword: 'p' });
    const url = `http://127.0.0.1:${h.port}/metrics`;
    expect((await get(url)).headers['www-authenticate']).toBe('Bearer realm="runnel", Basic realm="runnel", charset="UTF-8"');
    expect((await get(url, { headers: { authorization: 'Bearer t1' } })).status).toBe(200);
    expect((await get(url, { headers: { authorization: basic('u', 'p') } })).status).toBe(200);
  });

  it('authorized(): malformed headers are refused, nothing configured lets everything through', () => {
    const s = { bearerToken: 'abc', basicUser: '', basicPassword: '' };
    for (const h of [undefined, '', 'Bearer', 'Bearerabc', 'Basic abc', 'abc']) expect(authorized(s, h), String(h)).toBe(false);
    expect(authorized({ bearerToken: '', basicUser: 'u', basicPassword: 'p' }, `Basic ${Buffer.from('up').toString('base64')}`)).toBe(false);
    expect(authorized({ bearerToken: '', basicUser: '', basicPassword: '' }, undefined)).toBe(true);
  });
});

describe('HTTP endpoint: TLS (PEM keystore)', () => {
  it('serves HTTPS with the keystore\'s certificate; plain HTTP on that port gets no answer', async () => {
    const h = await serve({ keystoreLocation: keystore, bearerToken: 's' });
    const ca = fs.readFileSync(pki.caCert);
    const r = await get(`https://127.0.0.1:${h.port}/metrics`, { ca, headers: { authorization: 'Bearer s' } });
    expect(r.status).toBe(200);
    expect(r.body).toContain('test_things_total 3');
    // a client that does not trust the CA refuses the server
    await expect(get(`https://127.0.0.1:${h.port}/health`, { ca: fs.readFileSync(pki.otherCaCert) })).rejects.toThrow(/certificate/i);
    await expect(get(`http://127.0.0.1:${h.port}/health`)).rejects.toThrow();
  });

  it('an encrypted key opens with http.ssl.key.password; a wrong or missing one is a configuration error', async () => {
    const h = await serve({ keystoreLocation: encrypted, keyPassword: 'Kp-4411' });
    expect((await get(`https://127.0.0.1:${h.port}/health`, { ca: fs.readFileSync(pki.caCert) })).status).toBe(200);
    expect(() => httpsOptions({ ...base, keystoreLocation: encrypted, keyPassword: 'nope' })).toThrow(HttpConfigError);
    expect(() => httpsOptions({ ...base, keystoreLocation: encrypted })).toThrow(/http\.ssl\.keystore\.location=.*http\.ssl\.key\.password/);
  });

  it('client certificates: required refuses a client without one, accepts one signed by the truststore', async () => {
    const h = await serve({ keystoreLocation: keystore, truststoreLocation: pki.caCert, clientAuth: 'required' });
    const ca = fs.readFileSync(pki.caCert);
    await expect(get(`https://127.0.0.1:${h.port}/health`, { ca })).rejects.toThrow();
    const r = await get(`https://127.0.0.1:${h.port}/health`, { ca, cert: fs.readFileSync(pki.clientCert), key: fs.readFileSync(pki.clientKey) });
    expect(r.status).toBe(200);
  });

  it('refuses settings that would serve without the protection asked for', () => {
    const bad: Array<[Partial<HttpSettings>, RegExp]> = [
      [{ basicUser: 'u' }, /http\.auth\.basic\.user is set but http\.auth\.basic\.password is empty/],
      [{ basicPassword: 'p' }, /http\.auth\.basic\.password is set but http\.auth\.basic\.user is empty/],
      [{ keyPassword: 'x' }, /http\.ssl\.key\.password is set but http\.ssl\.keystore\.location is empty/],
      [{ truststoreLocation: '/x' }, /http\.ssl\.truststore\.location is set but http\.ssl\.keystore\.location is empty/],
      [{ clientAuth: 'required' }, /http\.ssl\.client\.auth=required needs http\.ssl\.keystore\.location/],
      [{ keystoreLocation: '/nonexistent/ks.pem' }, /http\.ssl\.keystore\.location=\/nonexistent\/ks\.pem: cannot read it \(ENOENT\)/],
      [{ keystoreLocation: '__CERT__' }, /no PEM private key in it/],
      [{ keystoreLocation: '__KS__', clientAuth: 'required' }, /http\.ssl\.client\.auth=required needs http\.ssl\.truststore\.location/],
    ];
    for (const [s, msg] of bad) {
      const resolved = { ...s, keystoreLocation: s.keystoreLocation === '__CERT__' ? pki.serverCert : s.keystoreLocation === '__KS__' ? keystore : (s.keystoreLocation ?? '') };
      expect(() => httpsOptions({ ...base, ...resolved }), JSON.stringify(s)).toThrow(msg);
    }
    expect(httpsOptions(base)).toBeNull();
  });
});
