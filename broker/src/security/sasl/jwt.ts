// Signed JWT access tokens (RFC 7519, compact JWS of RFC 7515) checked the
// way Kafka's broker validator does it (KIP-768, jose4j underneath): the
// signature with a key of the JWKS, alg "none" (and anything but RSA/EC
// signatures) refused, exp and iat required, exp, nbf and iat judged with
// the allowed clock skew, iss and aud against the expected values, the
// subject (claim name configurable) a non-empty string. jose selects the key
// and checks the signature and the registered claims; its errors are told
// in our words (JwtRejected). Pure: keys and the clock come from the caller.
import { errors, jwtVerify, type createLocalJWKSet, type CryptoKey, type JWK, type JWTPayload, type JWTVerifyOptions } from 'jose';

/** Why a token was refused; the client is only told invalid_token (RFC 7628). */
export class JwtRejected extends Error {}

/** The usable keys of a JWKS document and jose's choice among them (by the token's alg and kid, the key's kty, crv, alg and use). */
export interface VerificationKeys {
  /** The public members of each usable key. */
  readonly keys: readonly JWK[];
  readonly select: ReturnType<typeof createLocalJWKSet>;
}

export interface JwtValidation {
  /** sasl.oauthbearer.expected.issuer; null: any issuer. */
  expectedIssuer: string | null;
  /** sasl.oauthbearer.expected.audience; empty: any audience. */
  expectedAudience: readonly string[];
  /** sasl.oauthbearer.sub.claim.name */
  subClaimName: string;
  /** sasl.oauthbearer.scope.claim.name */
  scopeClaimName: string;
  /** sasl.oauthbearer.clock.skew.seconds */
  clockSkewSeconds: number;
}

export interface ValidatedToken {
  principalName: string;
  scope: string[];
  /** exp, in ms since the epoch. */
  expiresAtMs: number;
  issuedAtMs: number;
}

export interface DecodedJwt {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
}

/** The JWS algorithms accepted (asymmetric signatures only; "none", HMAC and EdDSA are refused, as Kafka's validator does). */
export const JWS_ALGORITHMS: readonly string[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'];

const B64URL = /^[A-Za-z0-9_-]*$/;

function jsonPart(part: string, what: string): Record<string, unknown> {
  if (!B64URL.test(part)) throw new JwtRejected(`malformed JWT: the ${what} is not base64url`);
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw new JwtRejected(`malformed JWT: the ${what} is not JSON`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new JwtRejected(`malformed JWT: the ${what} is not a JSON object`);
  return v as Record<string, unknown>;
}

/** Reads a compact JWS (header.payload.signature) without verifying it: the form, for precise refusals. */
export function decodeJwt(token: string): DecodedJwt {
  const parts = token.split('.');
  if (parts.length !== 3) throw new JwtRejected(`malformed JWT: ${parts.length} parts, expected 3 (header.payload.signature)`);
  const [h, p, s] = parts as [string, string, string];
  if (!B64URL.test(s)) throw new JwtRejected('malformed JWT: the signature is not base64url');
  return { header: jsonPart(h, 'header'), claims: jsonPart(p, 'payload') };
}

/** The largest NumericDate taken, in seconds: ECMAScript's time range (8.64e15 ms, the year 275760), well inside int64 ms. */
export const MAX_NUMERIC_DATE_S = 8_640_000_000_000;

/**
 * Refuses an exp, iat or nbf past a time value's range: such an expiry could
 * neither be printed nor sent as SaslAuthenticate's int64 session_lifetime_ms
 * (a RangeError that closed the connection); jose4j, under Kafka, cannot turn
 * such seconds into long ms either. Judged before any other claim.
 */
function checkNumericDateRange(claims: Record<string, unknown>): void {
  for (const name of ['exp', 'iat', 'nbf']) {
    const v = claims[name];
    if (typeof v === 'number' && !(Math.abs(v) <= MAX_NUMERIC_DATE_S)) {
      throw new JwtRejected(`the '${name}' claim ${v} is out of range (a NumericDate is at most ${MAX_NUMERIC_DATE_S} seconds either side of 1970-01-01)`);
    }
  }
}

const ms = (claims: Record<string, unknown>, name: string): number => Math.floor((claims[name] as number) * 1000);
const iso = (claims: Record<string, unknown>, name: string): string => new Date(ms(claims, name)).toISOString();

/** jose's refusal of a registered claim, in our words. */
function claimRefusal(e: errors.JWTClaimValidationFailed | errors.JWTExpired, v: JwtValidation): JwtRejected {
  const claims = e.payload as Record<string, unknown>;
  checkNumericDateRange(claims);
  const skew = `clock skew ${v.clockSkewSeconds} s`;
  if (e.reason === 'missing' && (e.claim === 'exp' || e.claim === 'iat')) return new JwtRejected(`no '${e.claim}' claim`);
  if (e.reason === 'invalid') return new JwtRejected(`the '${e.claim}' claim is not a NumericDate`);
  switch (e.claim) {
    case 'exp': return new JwtRejected(`the JWT expired at ${iso(claims, 'exp')} (${skew})`);
    case 'nbf': return new JwtRejected(`the JWT is not valid before ${iso(claims, 'nbf')} (${skew})`);
    case 'iat': return new JwtRejected(`the JWT is issued in the future (iat ${iso(claims, 'iat')}, ${skew})`);
    case 'iss': return new JwtRejected(`issuer '${String(claims.iss)}' is not the expected '${v.expectedIssuer ?? ''}'`);
    case 'aud': return new JwtRejected(`audience ${JSON.stringify(claims.aud ?? null)} is none of the expected ${v.expectedAudience.join(', ')}`);
    default: return new JwtRejected(`the '${e.claim}' claim: ${e.message}`);
  }
}

/** Any failure of jose's verification, in our words; the header is the token's, unverified. */
export function rejection(e: unknown, header: Record<string, unknown>, v: JwtValidation): JwtRejected {
  if (e instanceof JwtRejected) return e;
  const { alg, kid } = header;
  if (e instanceof errors.JWTClaimValidationFailed || e instanceof errors.JWTExpired) return claimRefusal(e, v);
  if (e instanceof errors.JWSSignatureVerificationFailed) return new JwtRejected('invalid JWT signature');
  if (e instanceof errors.JOSEAlgNotAllowed || e instanceof errors.JOSENotSupported) {
    if (alg === 'none') return new JwtRejected('alg "none" is not allowed (unsigned JWT)');
    return new JwtRejected(`alg "${String(alg)}" is not supported (supported: ${JWS_ALGORITHMS.join(', ')})`);
  }
  if (typeof alg !== 'string' || alg === '') return new JwtRejected('the JWT header has no alg');
  if (kid !== undefined && typeof kid !== 'string') return new JwtRejected('the JWT header kid is not a string');
  if (e instanceof errors.JWKSNoMatchingKey) return new JwtRejected(kid === undefined ? `no ${alg} key in the JWKS` : `no ${alg} key with kid "${kid}" in the JWKS`);
  if (e instanceof errors.JWSInvalid || e instanceof errors.JWTInvalid) return new JwtRejected(`malformed JWT: ${e.message}`);
  // What jose refuses about the key itself (an RSA modulus under 2048 bits, as jose4j; a JWK WebCrypto cannot import).
  return new JwtRejected(`the JWKS key cannot verify the JWT: ${e instanceof Error ? e.message : String(e)}`);
}

function options(v: JwtValidation, nowMs: number): JWTVerifyOptions {
  return {
    algorithms: [...JWS_ALGORITHMS],
    ...(v.expectedIssuer !== null ? { issuer: v.expectedIssuer } : {}),
    ...(v.expectedAudience.length ? { audience: [...v.expectedAudience] } : {}),
    requiredClaims: ['exp', 'iat'],
    clockTolerance: v.clockSkewSeconds,
    currentDate: new Date(nowMs),
    // jose judges iat against the clock only with a maximum age; Kafka sets none.
    maxTokenAge: Number.MAX_VALUE,
  };
}

/** jwtVerify with the keys' selection; when several keys fit (no kid), each is tried, as jose's documentation does it. */
async function verifyWithAny(token: string, keys: VerificationKeys, opts: JWTVerifyOptions): Promise<JWTPayload> {
  try {
    return (await jwtVerify(token, keys.select, opts)).payload;
  } catch (e) {
    if (!(e instanceof errors.JWKSMultipleMatchingKeys)) throw e;
    for await (const key of e as AsyncIterable<CryptoKey>) {
      try {
        return (await jwtVerify(token, key, opts)).payload;
      } catch (inner) {
        // A verified signature with bad claims is the answer; another key's failure is not.
        if (inner instanceof errors.JWTClaimValidationFailed || inner instanceof errors.JWTExpired || inner instanceof errors.JWTInvalid) throw inner;
      }
    }
    throw new errors.JWSSignatureVerificationFailed();
  }
}

/** Verifies a token with jose against the keys and checks its claims; `nowMs` is the broker's clock. Throws JwtRejected, or jose's error (see rejection). */
export async function verifyJwt(token: string, keys: VerificationKeys, v: JwtValidation, nowMs: number): Promise<ValidatedToken> {
  const claims = (await verifyWithAny(token, keys, options(v, nowMs))) as Record<string, unknown>;
  checkNumericDateRange(claims);
  const sub = claims[v.subClaimName];
  if (typeof sub !== 'string' || sub.trim() === '') throw new JwtRejected(`no '${v.subClaimName}' claim (a non-empty string) for the principal`);
  const rawScope = claims[v.scopeClaimName];
  // Kafka keeps a string scope as one value and a list as it is.
  const scope = typeof rawScope === 'string' ? [rawScope] : Array.isArray(rawScope) ? rawScope.filter((s): s is string => typeof s === 'string') : [];
  return { principalName: sub.trim(), scope, expiresAtMs: ms(claims, 'exp'), issuedAtMs: ms(claims, 'iat') };
}
