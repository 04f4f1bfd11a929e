// schema.registry.* settings and the listeners they start: URLs, TLS
// settings that cannot work, and basic / bearer authentication.
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeTestPki, type TestPki } from '../../helpers/redis-tls.js';
import { loadBrokerConfig } from '../../../broker/src/config/config.js';
import { registryListeners, registryRequiresCredentials, startSchemaRegistry, type RunningRegistry } from '../../../broker/src/schema-registry/server.js';
import { SchemaRegistry } from '../../../broker/src/schema-registry/registry.js';
import { MemoryStore } from './memory-store.js';

const listeners = (...sets: string[]) => registryListeners(loadBrokerConfig(sets.flatMap((s) => ['--set', s]), {}));

describe('schema.registry.* settings', () => {
  it('is off by default; takes http and https URLs with a port', () => {
    expect(listeners()).toEqual([]);
    const [l] = listeners('schema.registry.listeners=http://127.0.0.1:8081');
    expect(l).toMatchObject({ tls: false, settings: { host: '127.0.0.1', port: 8081, keystoreLocation: '' } });
    expect(listeners('schema.registry.listeners=http://[::1]:0, http://127.0.0.1:0').map((x) => x.settings.host)).toEqual(['::1', '127.0.0.1']);
  });

  it('refuses settings that cannot work, naming them', () => {
    expect(() => listeners('schema.registry.listeners=127.0.0.1:8081')).toThrow(/expected the scheme http or https|not a URL/);
    expect(() => listeners('schema.registry.listeners=http://127.0.0.1')).toThrow(/with a port/);
    expect(() => listeners('schema.registry.listeners=https://127.0.0.1:8081')).toThrow(/https but schema.registry.ssl.keystore.location is empty/);
    expect(() => listeners('schema.registry.listeners=http://127.0.0.1:8081', 'schema.registry.ssl.keystore.location=/x.pem')).toThrow(/no listener .* is https/);
    expect(() => listeners('schema.registry.listeners=http://127.0.0.1:8081', 'schema.registry.auth.basic.user=u')).toThrow(/schema.registry.auth.basic.password is empty/);
    expect(() => listeners('schema.registry.listeners=https://127.0.0.1:8081', 'schema.registry.ssl.keystore.location=/no/such.pem')).toThrow(/cannot read it/);
  });

  it('knows whether every listener asks for a credential', () => {
    expect(registryRequiresCredentials(listeners('schema.registry.listeners=http://127.0.0.1:0'))).toBe(false);
    expect(registryRequiresCredentials(listeners('schema.registry.listeners=http://127.0.0.1:0', 'schema.registry.auth.bearer.token=t'))).toBe(true);
  });
});

describe('schema registry listener', () => {
  let running: RunningRegistry | null = null;
  afterEach(async () => { await running?.close(); running = null; });

  it('requires the configured basic or bearer credential on every path', async () => {
    const ls = listeners('schema.registry.listeners=http://127.0.0.1:0', 'schema.registry.auth.basic.user=sr', 'schema.registry.auth.basic.password=pw', 'schema.registry.auth.bearer.token=tok');
    running = await startSchemaRegistry(ls, { registry: new SchemaRegistry(new MemoryStore()), acls: null, bearerPrincipal: 'User:ANONYMOUS' });
    const url = running.urls[0]!;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const none = await fetch(`${url}/subjects`);
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ error_code: 401, message: 'Unauthorized' });
    expect(none.headers.get('www-authenticate')).toMatch(/Basic/);
    const wrong = await fetch(`${url}/subjects`, { headers: { authorization: `Basic ${Buffer.from('sr:nope').toString('base64')}` } });
    expect(wrong.status).toBe(401);
    const basic = await fetch(`${url}/subjects`, { headers: { authorization: `Basic ${Buffer.from('sr:pw').toString('base64')}` } });
    expect([basic.status, await basic.json()]).toEqual([200, []]);
    const bearer = await fetch(`${url}/schemas/types`, { headers: { authorization: 'Bearer tok' } });
    expect([bearer.status, await bearer.json()]).toEqual([200, ['JSON', 'PROTOBUF', 'AVRO']]);
  });
});

describe('schema registry https listener', () => {
  let pki: TestPki;
  let keystore: string;
  let running: RunningRegistry | null = null;
  beforeAll(async () => {
    pki = await makeTestPki();
    keystore = path.join(pki.dir, 'server-keystore.pem');
    fs.writeFileSync(keystore, fs.readFileSync(pki.serverKey, 'utf8') + fs.readFileSync(pki.serverCert, 'utf8'));
  }, 60_000);
  afterAll(async () => {
    await running?.close();
    if (pki) fs.rmSync(pki.dir, { recursive: true, force: true });
  });

  /** GET over https with the test CA, optionally presenting the client certificate. */
  const get = (url: string, cert: boolean): Promise<{ status: number; body: string }> => new Promise((resolve, reject) => {
    const req = https.get(url, { ca: fs.readFileSync(pki.caCert), ...(cert ? { cert: fs.readFileSync(pki.clientCert), key: fs.readFileSync(pki.clientKey) } : {}), timeout: 5_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });

  it('serves TLS with the PEM keystore and, with client.auth=required, only to clients with a certificate the truststore signed', async () => {
    const ls = listeners('schema.registry.listeners=https://127.0.0.1:0', `schema.registry.ssl.keystore.location=${keystore}`,
      `schema.registry.ssl.truststore.location=${pki.caCert}`, 'schema.registry.ssl.client.auth=required');
    expect(registryRequiresCredentials(ls)).toBe(true);
    running = await startSchemaRegistry(ls, { registry: new SchemaRegistry(new MemoryStore()), acls: null, bearerPrincipal: 'User:ANONYMOUS' });
    const url = running.urls[0]!;
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(await get(`${url}/schemas/types`, true)).toEqual({ status: 200, body: '["JSON","PROTOBUF","AVRO"]' });
    await expect(get(`${url}/schemas/types`, false)).rejects.toThrow();
  });
});
