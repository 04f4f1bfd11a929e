// SASL/OAUTHBEARER tokens whose exp, iat or nbf lie past the range of a time
// (issue 27): signed by the broker's JWKS key, sent over the wire to a real
// broker on a real Redis. Each is refused with RFC 7628's exchange
// ({"status":"invalid_token"}, then SASL_AUTHENTICATION_FAILED 58) instead of
// an internal RangeError that closed the connection without an answer; the
// last second a time can hold (exp 8,640,000,000,000) still authenticates and
// its session lifetime fits SaslAuthenticate's int64.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireClient } from '../../helpers/wire.js';
import { claimsFor, clientInitialResponse, jwksOf, makeSigningKey, signJwt } from '../../helpers/jwt.js';
import { startSaslBroker, type SaslBroker } from './support.js';
import { SaslHandshake } from '../../../broker/src/protocol/messages/sasl-handshake.js';
import { SaslAuthenticate } from '../../../broker/src/protocol/messages/sasl-authenticate.js';

const ISSUER = 'https://idp.runnel.test';
const AUDIENCE = 'runnel-cluster';
const key = makeSigningKey('range-1', 'RS256');
let sasl: SaslBroker;
let jwksDir: string;

const token = (over: Record<string, unknown>): string => signJwt(key, claimsFor('alice', Date.now(), { iss: ISSUER, aud: AUDIENCE, ...over }));

beforeAll(async () => {
  jwksDir = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-jwks-range-'));
  const jwks = path.join(jwksDir, 'jwks.json');
  fs.writeFileSync(jwks, jwksOf([key]));
  sasl = await startSaslBroker([
    'sasl.enabled.mechanisms=OAUTHBEARER',
    `sasl.oauthbearer.jwks.endpoint.url=file://${jwks}`,
    `sasl.oauthbearer.expected.issuer=${ISSUER}`,
    `sasl.oauthbearer.expected.audience=${AUDIENCE}`,
  ]);
}, 60_000);

afterAll(async () => {
  await sasl?.stop();
  if (jwksDir) fs.rmSync(jwksDir, { recursive: true, force: true });
});

describe('SASL/OAUTHBEARER NumericDate range', () => {
  it('exp past int64 ms (1e16 s), exp far in the past (-1e16 s), iat and nbf out of range: invalid_token, then 58, then the connection closes', async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases: Record<string, string> = {
      'exp=1e16': token({ exp: 1e16 }),
      'exp=-1e16': token({ exp: -1e16 }),
      'iat=-1e16': token({ iat: -1e16 }),
      'nbf=1e300': token({ nbf: 1e300, exp: now + 600 }),
    };
    for (const [what, jwt] of Object.entries(cases)) {
      const c = await WireClient.connect(sasl.broker.port);
      try {
        expect((await c.request(SaslHandshake, 1, { mechanism: 'OAUTHBEARER' })).errorCode, what).toBe(0);
        const first = await c.request(SaslAuthenticate, 2, { authBytes: clientInitialResponse(jwt) });
        expect([first.errorCode, Buffer.from(first.authBytes as Buffer).toString()], what).toEqual([0, '{"status":"invalid_token"}']);
        const second = await c.request(SaslAuthenticate, 2, { authBytes: Buffer.from([1]) });
        expect([second.errorCode, second.errorMessage], what).toEqual([58, '{"status":"invalid_token"}']);
        expect(await c.closedWithin(3000), what).toBe(true);
      } finally {
        c.close();
      }
    }
    // The broker logs why (the client is only told invalid_token).
    expect(fs.readFileSync(sasl.broker.proc().logFile, 'utf8')).toContain("the 'exp' claim 10000000000000000 is out of range");
  });

  it('exp at the last second a time can hold authenticates; the session lifetime is that far away', async () => {
    const c = await WireClient.connect(sasl.broker.port);
    try {
      expect((await c.request(SaslHandshake, 1, { mechanism: 'OAUTHBEARER' })).errorCode).toBe(0);
      const r = await c.request(SaslAuthenticate, 2, { authBytes: clientInitialResponse(token({ exp: 8_640_000_000_000 })) });
      expect([r.errorCode, r.errorMessage]).toEqual([0, '']);
      const lifetime = Number(r.sessionLifetimeMs);
      expect(lifetime).toBeGreaterThan(8_640_000_000_000_000 - Date.now() - 60_000);
      expect(lifetime).toBeLessThanOrEqual(8_640_000_000_000_000 - Date.now() + 60_000);
    } finally {
      c.close();
    }
  });
});
