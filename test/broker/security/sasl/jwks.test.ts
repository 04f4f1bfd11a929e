// The broker's JWKS: parsing, a file read again when it changes, an HTTP
// endpoint cached for jwks.endpoint.refresh.ms and fetched again for an
// unknown kid (key rotation), failures keeping the keys known.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileJwks, HttpJwks, jwksSource, MISSING_KID_MIN_GAP_MS, MISSING_KID_REFETCH_MS, parseJwks } from '../../../../broker/src/security/sasl/jwks.js';
import type { VerificationKeys } from '../../../../broker/src/security/sasl/jwt.js';
import { jwksOf, makeSigningKey } from '../../../helpers/jwt.js';

const k1 = makeSigningKey('k1', 'RS256');
const k2 = makeSigningKey('k2', 'ES256');
const kids = (set: VerificationKeys): Array<string | undefined> => set.keys.map((k) => k.kid);

describe('parseJwks', () => {
  it('keeps RSA and EC signature keys with kid, kty, crv, alg; skips encryption, symmetric, unknown-alg and malformed keys', async () => {
    const doc = JSON.parse(jwksOf([k1, k2])) as { keys: unknown[] };
    const k3 = JSON.parse(jwksOf([makeSigningKey('k3', 'ES384')])) as { keys: Array<Record<string, unknown>> };
    doc.keys.push(
      { kty: 'RSA', kid: 'enc', use: 'enc', n: 'AQAB', e: 'AQAB' },
      { kty: 'oct', kid: 'hmac', k: 'c2VjcmV0' },
      { kty: 'EC', kid: 'broken', crv: 'P-256', x: 'AA', y: 'AA' },
      { ...k3.keys[0], kid: 'wrong-curve', alg: 'ES256' },
      { ...k3.keys[0], kid: 'oaep', alg: 'RSA-OAEP' },
      'not a key',
    );
    const set = await parseJwks(JSON.stringify(doc));
    expect(set.keys.map((k) => [k.kid, k.kty, k.crv, k.alg])).toEqual([['k1', 'RSA', undefined, 'RS256'], ['k2', 'EC', 'P-256', 'ES256']]);
    expect(set.select.jwks().keys.map((k) => k.kid)).toEqual(['k1', 'k2']);
  });

  it('uses only the public members of a JWK that also carries private ones', async () => {
    const priv = { ...k1.privateKey.export({ format: 'jwk' }), kid: 'p' };
    const { keys: [key] } = await parseJwks(JSON.stringify({ keys: [priv] }));
    expect(Object.keys(key!).sort()).toEqual(['e', 'kid', 'kty', 'n']);
    expect(key!.n).toBe(priv.n);
  });

  it('refuses a document that is not a JWKS', async () => {
    await expect(parseJwks('{"kty":"RSA"}')).rejects.toThrow('not a JWKS: no "keys" array');
    await expect(parseJwks('nope')).rejects.toThrow();
  });
});

describe('FileJwks (file:// URL)', () => {
  it('reads the file again when its modification time changes; a broken rewrite keeps the last good keys', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-jwks-'));
    try {
      const file = path.join(dir, 'jwks.json');
      fs.writeFileSync(file, jwksOf([k1]));
      const src = jwksSource(pathToFileURL(file).href, 3_600_000);
      expect(src).toBeInstanceOf(FileJwks);
      expect(kids(await src.keys())).toEqual(['k1']);
      fs.writeFileSync(file, jwksOf([k1, k2]));
      fs.utimesSync(file, new Date(), new Date(Date.now() + 5_000));
      expect(kids(await src.keys())).toEqual(['k1', 'k2']);
      fs.writeFileSync(file, '{"keys": [');
      fs.utimesSync(file, new Date(), new Date(Date.now() + 10_000));
      expect(kids(await src.keys())).toEqual(['k1', 'k2']);
      fs.writeFileSync(file, jwksOf([k2]));
      fs.utimesSync(file, new Date(), new Date(Date.now() + 15_000));
      expect(kids(await src.keys())).toEqual(['k2']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('HttpJwks (http:// URL)', () => {
  let server: http.Server;
  let url: string;
  let body = jwksOf([k1]);
  let status = 200;
  let hits = 0;
  beforeAll(async () => {
    server = http.createServer((_req, res) => { hits++; res.writeHead(status, { 'content-type': 'application/json' }).end(body); });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/jwks`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('fetches once, serves from cache until refresh.ms, fetches again after it', async () => {
    const clock = { t: 0 };
    const src = new HttpJwks(url, 60_000, () => clock.t);
    hits = 0;
    expect(kids(await src.keys())).toEqual(['k1']);
    body = jwksOf([k1, k2]);
    clock.t = 59_999;
    expect(kids(await src.keys())).toEqual(['k1']);
    clock.t = 60_000;
    expect(kids(await src.keys())).toEqual(['k1', 'k2']);
    expect(hits).toBe(2);
  });

  it('an unknown kid fetches again at once (key rotation); the same kid again only after MISSING_KID_REFETCH_MS, other kids at most every MISSING_KID_MIN_GAP_MS', async () => {
    const clock = { t: 0 };
    body = jwksOf([k1]);
    status = 200;
    const src = new HttpJwks(url, 3_600_000, () => clock.t);
    hits = 0;
    await src.keys();
    body = jwksOf([k1, k2]);
    clock.t = 1;
    expect(kids(await src.keys('k2'))).toEqual(['k1', 'k2']);
    expect(hits).toBe(2);
    clock.t = 2;
    expect(kids(await src.keys('k2'))).toEqual(['k1', 'k2']);
    expect(kids(await src.keys('made-up-1'))).toEqual(['k1', 'k2']);
    expect(hits).toBe(2);
    clock.t = 1 + MISSING_KID_MIN_GAP_MS;
    await src.keys('made-up-1');
    expect(hits).toBe(3);
    clock.t = 2 + MISSING_KID_MIN_GAP_MS;
    await src.keys('made-up-2');
    await src.keys('k2');
    expect(hits).toBe(3);
    clock.t = 1 + MISSING_KID_REFETCH_MS;
    await src.keys('k2');
    expect(hits).toBe(4);
  });

  it('a failed fetch (HTTP 500) keeps the keys known and is retried after MISSING_KID_REFETCH_MS, not a whole refresh period', async () => {
    const clock = { t: 0 };
    body = jwksOf([k1]);
    status = 200;
    const src = new HttpJwks(url, 60_000, () => clock.t);
    await src.keys();
    status = 500;
    clock.t = 60_000;
    expect(kids(await src.keys())).toEqual(['k1']);
    status = 200;
    body = jwksOf([k2]);
    clock.t = 60_000 + MISSING_KID_REFETCH_MS;
    expect(kids(await src.keys())).toEqual(['k2']);
  });
});
