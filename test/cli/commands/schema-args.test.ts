import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSchemaArgs } from '../../../cli/commands/schema.js';
import { RegistryClient, RegistryResponseError } from '../../../cli/commands/registry-client.js';
import { CliUsageError } from '../../../cli/kafka/errors.js';

describe('runnel schema arguments', () => {
  it('takes the subject as the resource name and each subcommand its own flags', () => {
    expect(parseSchemaArgs(['register', 'orders-value', '--file', 'o.avsc', '--type', 'json'])).toMatchObject({ sub: 'register', subject: 'orders-value', values: { file: 'o.avsc', type: 'json' } });
    expect(parseSchemaArgs(['config'])).toMatchObject({ sub: 'config', subject: null });
    expect(parseSchemaArgs(['config', 's', '--compatibility', 'full_transitive'])).toMatchObject({ subject: 's', values: { compatibility: 'full_transitive' } });
    expect(parseSchemaArgs(['get', 's', '--version', 'latest']).values.version).toBe('latest');
  });

  it.each([
    [[], 'which one?'],
    [['drop', 's'], 'schema drop: unknown'],
    [['get'], 'missing subject'],
    [['list', 's'], 'unexpected argument s'],
    [['get', 's', 'x'], 'unexpected argument x'],
    [['register', 's', '--type', 'XML'], '--type XML: expected AVRO, JSON or PROTOBUF'],
    [['config', '--compatibility', 'SOMETIMES'], '--compatibility SOMETIMES: expected BACKWARD'],
    [['get', 's', '--version', '0'], '--version 0: expected a version number or latest'],
    [['list', '--permanent'], '--permanent does not apply to schema list'],
    [['get', 's', '--bogus'], "Unknown option '--bogus'"],
  ])('%j is a usage error: %s', (args, msg) => {
    expect(() => parseSchemaArgs(args)).toThrow(CliUsageError);
    expect(() => parseSchemaArgs(args)).toThrow(msg);
  });
});

describe('registry client', () => {
  let server: http.Server;
  let url = '';
  const seen: Array<{ method?: string; url?: string; auth?: string; type?: string; body: string }> = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, auth: req.headers.authorization, type: req.headers['content-type'], body });
        if (req.url === '/subjects/missing/versions/latest') {
          res.writeHead(404, { 'content-type': 'application/vnd.schemaregistry.v1+json' }).end('{"error_code":40401,"message":"Subject \'missing\' not found."}');
        } else if (req.url === '/html') {
          res.writeHead(502).end('<html>bad gateway</html>');
        } else {
          res.writeHead(200, { 'content-type': 'application/vnd.schemaregistry.v1+json' }).end('{"id":7}');
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('sends JSON with Confluent\'s content type and basic credentials', async () => {
    const c = new RegistryClient({ url, basicAuth: 'ann:pw' });
    expect(await c.send('POST', '/subjects/a%2Fb/versions', { schema: '"string"' })).toEqual({ id: 7 });
    expect(seen.at(-1)).toEqual({ method: 'POST', url: '/subjects/a%2Fb/versions', auth: `Basic ${Buffer.from('ann:pw').toString('base64')}`, type: 'application/vnd.schemaregistry.v1+json', body: '{"schema":"\\"string\\""}' });
  });

  it('turns Confluent\'s error body into its message and error_code, and any other body into its status', async () => {
    const c = new RegistryClient({ url });
    const e = await c.get('/subjects/missing/versions/latest').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RegistryResponseError);
    expect((e as RegistryResponseError).errorCode).toBe(40401);
    expect((e as Error).message).toBe("Subject 'missing' not found. (error_code 40401, HTTP 404)");
    await expect(c.get('/html')).rejects.toThrow('HTTP 502: <html>bad gateway</html>');
  });

  it('names a refused connection and a URL that is not http', async () => {
    const dead = http.createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const port = (dead.address() as AddressInfo).port;
    await new Promise<void>((r) => dead.close(() => r()));
    await expect(new RegistryClient({ url: `http://127.0.0.1:${port}` }).get('/subjects')).rejects.toThrow(`registry http://127.0.0.1:${port}: connection refused`);
    expect(() => new RegistryClient({ url: 'ftp://x' })).toThrow('expected http:// or https://');
  });
});
