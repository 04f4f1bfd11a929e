// schema.registry.* settings and the listeners they start: URLs, TLS
// settings that cannot work, and basic / bearer authentication.
import { afterEach, describe, expect, it } from 'vitest';
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
