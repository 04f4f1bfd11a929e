// JWT access tokens as Kafka's broker validator (KIP-768) judges them:
// signatures of every supported alg from JWK keys, and each refusal.
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { validateToken } from '../../../../broker/src/security/sasl/oauthbearer.js';
import { decodeJwt, JwtRejected, type JwtValidation } from '../../../../broker/src/security/sasl/jwt.js';
import { parseJwks, type VerificationKeySource } from '../../../../broker/src/security/sasl/jwks.js';
import { claimsFor, jwksOf, makeSigningKey, signJwt, unsignedJwt } from '../../../helpers/jwt.js';

const NOW = 1_800_000_000_000;
const V: JwtValidation = { expectedIssuer: 'https://idp.test', expectedAudience: ['other', 'runnel'], subClaimName: 'sub', scopeClaimName: 'scope', clockSkewSeconds: 30 };
const rsa = makeSigningKey('rsa-1', 'RS256');
const source = (jwks: string): VerificationKeySource => {
  const keys = parseJwks(jwks);
  return { keys: () => keys };
};
const SRC = source(jwksOf([rsa]));

async function refusal(token: string, v: JwtValidation = V, src = SRC): Promise<string> {
  const e = await validateToken(token, src, v, NOW).then(() => null, (x: unknown) => x);
  expect(e).toBeInstanceOf(JwtRejected);
  return (e as Error).message;
}

describe('JWT signatures (jose, keys from the JWKS; tokens signed by node:crypto)', () => {
  for (const alg of ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512']) {
    it(`${alg}: a token signed by the JWKS key validates; principal from sub, expiry from exp`, async () => {
      const k = alg === 'RS256' ? rsa : makeSigningKey(`k-${alg}`, alg);
      const t = await validateToken(signJwt(k, claimsFor('alice', NOW)), source(jwksOf([k])), V, NOW);
      expect(t).toEqual({ principalName: 'alice', scope: ['kafka'], expiresAtMs: NOW + 3_600_000, issuedAtMs: NOW });
    });
  }

  it('a JWK without alg or kid still verifies a token whose header has no kid', async () => {
    const t = await validateToken(signJwt(rsa, claimsFor('bob', NOW), { kid: undefined }), source(jwksOf([rsa], false)), V, NOW);
    expect(t.principalName).toBe('bob');
  });

  it('without a kid, every key that fits the alg is tried; none that verifies is a signature refusal', async () => {
    const other = makeSigningKey('rsa-2', 'RS256');
    const both = source(jwksOf([other, rsa], false));
    expect((await validateToken(signJwt(rsa, claimsFor('carol', NOW), { kid: undefined }), both, V, NOW)).principalName).toBe('carol');
    expect(await refusal(signJwt(makeSigningKey('x'), claimsFor('carol', NOW), { kid: undefined }), V, both)).toBe('invalid JWT signature');
    // A key that verifies the signature answers with its claims refusal.
    expect(await refusal(signJwt(rsa, claimsFor('carol', NOW, { aud: 'billing' }), { kid: undefined }), V, both)).toBe('audience "billing" is none of the expected other, runnel');
  });

  it('an unknown kid asks the key source once more (missingKid); a key it then has verifies', async () => {
    const rotated = makeSigningKey('rsa-2', 'RS256');
    const before = await parseJwks(jwksOf([rsa]));
    const after = await parseJwks(jwksOf([rsa, rotated]));
    const asked: Array<string | undefined> = [];
    const src: VerificationKeySource = { keys: async (kid) => { asked.push(kid); return kid === undefined ? before : after; } };
    expect((await validateToken(signJwt(rotated, claimsFor('dave', NOW)), src, V, NOW)).principalName).toBe('dave');
    expect(asked).toEqual([undefined, 'rsa-2']);
    // Nothing new from the source: one refusal, no further asking.
    const still: VerificationKeySource = { keys: async (kid) => { asked.push(kid); return before; } };
    asked.length = 0;
    expect(await refusal(signJwt(rotated, claimsFor('dave', NOW)), V, still)).toBe('no RS256 key with kid "rsa-2" in the JWKS');
    expect(asked).toEqual([undefined, 'rsa-2']);
  });

  it('refuses an RSA key under 2048 bits (jose, as jose4j under Kafka)', async () => {
    const small = { kid: 'small', alg: 'RS256', ...generateKeyPairSync('rsa', { modulusLength: 1024 }) };
    expect(await refusal(signJwt(small, claimsFor('alice', NOW)), V, source(jwksOf([small])))).toBe('the JWKS key cannot verify the JWT: RS256 requires key modulusLength to be 2048 bits or larger');
  });

  it('refuses a token signed by another key with the same kid, and an unknown kid', async () => {
    const other = makeSigningKey('rsa-1', 'RS256');
    expect(await refusal(signJwt(other, claimsFor('alice', NOW)))).toBe('invalid JWT signature');
    expect(await refusal(signJwt(makeSigningKey('rsa-9'), claimsFor('alice', NOW)))).toBe('no RS256 key with kid "rsa-9" in the JWKS');
  });

  it('refuses alg "none", HS256 and an alg that does not match the key type', async () => {
    expect(await refusal(unsignedJwt(claimsFor('alice', NOW)))).toBe('alg "none" is not allowed (unsigned JWT)');
    expect(await refusal(signJwt(rsa, claimsFor('alice', NOW), { alg: 'HS256' }))).toMatch(/^alg "HS256" is not supported/);
    expect(await refusal(signJwt(rsa, claimsFor('alice', NOW), { alg: 'ES256' }))).toBe('no ES256 key with kid "rsa-1" in the JWKS');
    expect(await refusal(signJwt(rsa, claimsFor('alice', NOW), { alg: undefined }))).toBe('the JWT header has no alg');
    expect(await refusal(signJwt(rsa, claimsFor('alice', NOW), { kid: 7 }))).toBe('the JWT header kid is not a string');
  });

  it('HMAC confusion: an HS256 token whose secret is the RSA public key published in the JWKS is refused', async () => {
    const secret = rsa.publicKey.export({ format: 'pem', type: 'spki' });
    const h = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid: 'rsa-1' })).toString('base64url');
    const p = Buffer.from(JSON.stringify(claimsFor('admin', NOW))).toString('base64url');
    const mac = createHmac('sha256', secret).update(`${h}.${p}`).digest('base64url');
    expect(await refusal(`${h}.${p}.${mac}`)).toMatch(/^alg "HS256" is not supported/);
  });

  it('refuses a tampered payload', async () => {
    const [h, , s] = signJwt(rsa, claimsFor('alice', NOW)).split('.');
    const forged = Buffer.from(JSON.stringify(claimsFor('admin', NOW))).toString('base64url');
    expect(await refusal(`${h}.${forged}.${s}`)).toBe('invalid JWT signature');
  });

  it('refuses malformed tokens', async () => {
    expect(await refusal('abc')).toMatch(/^malformed JWT: 1 parts/);
    expect(await refusal('a.b.c.d')).toMatch(/^malformed JWT: 4 parts/);
    expect(await refusal('e30.!!.sig')).toBe('malformed JWT: the payload is not base64url');
    expect(await refusal(`${Buffer.from('[1]').toString('base64url')}.e30.c2ln`)).toBe('malformed JWT: the header is not a JSON object');
    expect(() => decodeJwt('bm90IGpzb24.e30.')).toThrow('malformed JWT: the header is not JSON');
  });
});

describe('JWT claims', () => {
  const t = (over: Record<string, unknown>, life = 3600): string => signJwt(rsa, claimsFor('alice', NOW, over, life));

  it('expired: refused once exp + clock skew has passed, accepted within the skew', async () => {
    expect(await refusal(t({ exp: NOW / 1000 - 31 }))).toMatch(/^the JWT expired at .* \(clock skew 30 s\)$/);
    expect((await validateToken(t({ exp: NOW / 1000 - 29 }), SRC, V, NOW)).principalName).toBe('alice');
    expect(await refusal(t({ exp: NOW / 1000 - 1 }), { ...V, clockSkewSeconds: 0 })).toMatch(/^the JWT expired/);
  });

  it('not yet valid: nbf or iat beyond the skew in the future', async () => {
    expect(await refusal(t({ nbf: NOW / 1000 + 60 }))).toMatch(/^the JWT is not valid before/);
    expect(await refusal(t({ iat: NOW / 1000 + 60 }))).toMatch(/^the JWT is issued in the future/);
    expect((await validateToken(t({ nbf: NOW / 1000 + 20, iat: NOW / 1000 + 20 }), SRC, V, NOW)).principalName).toBe('alice');
  });

  it('exp and iat are required (as Kafka requires them)', async () => {
    expect(await refusal(t({ exp: undefined }))).toBe("no 'exp' claim");
    expect(await refusal(t({ iat: undefined }))).toBe("no 'iat' claim");
    expect(await refusal(t({ exp: 'tomorrow' }))).toBe("the 'exp' claim is not a NumericDate");
  });

  it('an exp, iat or nbf past the range of a time (8,640,000,000,000 s either side of 1970) is refused, not a RangeError', async () => {
    // 1e16 s is past int64 milliseconds (9.2e15 s); -1e16 s is "expired" at a date no Date can print.
    for (const [claim, value] of [['exp', 1e16], ['exp', -1e16], ['exp', 8_640_000_000_001], ['iat', -1e16], ['nbf', 1e300]] as const) {
      expect(await refusal(t({ [claim]: value })), `${claim}=${value}`).toBe(`the '${claim}' claim ${value} is out of range (a NumericDate is at most 8640000000000 seconds either side of 1970-01-01)`);
    }
    // The last second a time can hold still validates (exp in the year 275760).
    expect((await validateToken(t({ exp: 8_640_000_000_000 }), SRC, V, NOW)).expiresAtMs).toBe(8_640_000_000_000_000);
  });

  it('wrong issuer, wrong audience; any one expected audience is enough, aud may be a list', async () => {
    expect(await refusal(t({ iss: 'https://evil.test' }))).toBe("issuer 'https://evil.test' is not the expected 'https://idp.test'");
    expect(await refusal(t({ aud: 'billing' }))).toBe('audience "billing" is none of the expected other, runnel');
    expect(await refusal(t({ aud: undefined }))).toMatch(/^audience null/);
    expect((await validateToken(t({ aud: ['billing', 'runnel'] }), SRC, V, NOW)).principalName).toBe('alice');
    expect((await validateToken(t({ iss: 'x', aud: 'y' }), SRC, { ...V, expectedIssuer: null, expectedAudience: [] }, NOW)).principalName).toBe('alice');
  });

  it('the subject: required and non-empty; its claim name is sasl.oauthbearer.sub.claim.name; scope from scope.claim.name', async () => {
    expect(await refusal(t({ sub: undefined }))).toBe("no 'sub' claim (a non-empty string) for the principal");
    expect(await refusal(t({ sub: '  ' }))).toMatch(/^no 'sub' claim/);
    const v = { ...V, subClaimName: 'client_id', scopeClaimName: 'scp' };
    expect(await validateToken(t({ client_id: 'svc-orders', scp: ['read', 'write'] }), SRC, v, NOW)).toMatchObject({ principalName: 'svc-orders', scope: ['read', 'write'] });
    expect(await refusal(t({}), v)).toBe("no 'client_id' claim (a non-empty string) for the principal");
  });
});
