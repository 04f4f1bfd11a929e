// Signed JWT access tokens (RFC 7519, compact JWS of RFC 7515) checked the
// way Kafka's broker validator does it (KIP-768, jose4j underneath): the
// signature with a key of the JWKS, alg "none" (and anything but RSA/EC
// signatures) refused, exp and iat required, exp, nbf and iat judged with
// the allowed clock skew, iss and aud against the expected values, the
// subject (claim name configurable) a non-empty string. Pure: keys and the
// clock come from the caller; node:crypto does the signature check.
import { verify, constants, type KeyObject } from 'node:crypto';

/** Why a token was refused; the client is only told invalid_token (RFC 7628). */
export class JwtRejected extends Error {}

/** A verification key of the JWKS. */
export interface VerificationKey {
  kid: string | undefined;
  /** The JWK's kty: RSA or EC. */
  kty: string;
  /** The JWK's crv for EC keys (P-256, P-384, P-521). */
  crv: string | undefined;
  /** The JWK's alg, when it names one: the key is used for that algorithm only. */
  alg: string | undefined;
  key: KeyObject;
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
  signingInput: Buffer;
  signature: Buffer;
}

interface Algorithm { hash: 'sha256' | 'sha384' | 'sha512'; kty: 'RSA' | 'EC'; pss?: boolean; crv?: string }

/** The JWS algorithms accepted (asymmetric signatures only; "none" and HMAC are refused). */
export const JWS_ALGORITHMS: Readonly<Record<string, Algorithm>> = {
  RS256: { hash: 'sha256', kty: 'RSA' },
  RS384: { hash: 'sha384', kty: 'RSA' },
  RS512: { hash: 'sha512', kty: 'RSA' },
  PS256: { hash: 'sha256', kty: 'RSA', pss: true },
  PS384: { hash: 'sha384', kty: 'RSA', pss: true },
  PS512: { hash: 'sha512', kty: 'RSA', pss: true },
  ES256: { hash: 'sha256', kty: 'EC', crv: 'P-256' },
  ES384: { hash: 'sha384', kty: 'EC', crv: 'P-384' },
  ES512: { hash: 'sha512', kty: 'EC', crv: 'P-521' },
};

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

/** Splits a compact JWS (header.payload.signature) without checking anything but its form. */
export function decodeJwt(token: string): DecodedJwt {
  const parts = token.split('.');
  if (parts.length !== 3) throw new JwtRejected(`malformed JWT: ${parts.length} parts, expected 3 (header.payload.signature)`);
  const [h, p, s] = parts as [string, string, string];
  if (!B64URL.test(s)) throw new JwtRejected('malformed JWT: the signature is not base64url');
  return { header: jsonPart(h, 'header'), claims: jsonPart(p, 'payload'), signingInput: Buffer.from(`${h}.${p}`, 'ascii'), signature: Buffer.from(s, 'base64url') };
}

/** The keys that may have signed a token with this alg and kid. */
export function candidateKeys(keys: readonly VerificationKey[], alg: string, kid: string | undefined): VerificationKey[] {
  const a = JWS_ALGORITHMS[alg];
  if (!a) return [];
  return keys.filter((k) => (kid === undefined || k.kid === kid) && k.kty === a.kty && (a.crv === undefined || k.crv === a.crv) && (k.alg === undefined || k.alg === alg));
}

/** Checks the signature of a decoded token against one key. */
export function signatureValid(jwt: DecodedJwt, alg: string, key: KeyObject): boolean {
  const a = JWS_ALGORITHMS[alg];
  if (!a) return false;
  try {
    if (a.kty === 'EC') return verify(a.hash, jwt.signingInput, { key, dsaEncoding: 'ieee-p1363' }, jwt.signature);
    if (a.pss) return verify(a.hash, jwt.signingInput, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }, jwt.signature);
    return verify(a.hash, jwt.signingInput, key, jwt.signature);
  } catch {
    return false;
  }
}

/** The header's alg and kid, refusing what cannot be verified with a public key. */
export function headerAlgorithm(jwt: DecodedJwt): { alg: string; kid: string | undefined } {
  const { alg, kid } = jwt.header;
  if (typeof alg !== 'string') throw new JwtRejected('the JWT header has no alg');
  if (alg === 'none') throw new JwtRejected('alg "none" is not allowed (unsigned JWT)');
  if (!JWS_ALGORITHMS[alg]) throw new JwtRejected(`alg "${alg}" is not supported (supported: ${Object.keys(JWS_ALGORITHMS).join(', ')})`);
  if (kid !== undefined && typeof kid !== 'string') throw new JwtRejected('the JWT header kid is not a string');
  return { alg, kid };
}

/** The largest NumericDate taken, in seconds: ECMAScript's time range (8.64e15 ms, the year 275760), well inside int64 ms. */
export const MAX_NUMERIC_DATE_S = 8_640_000_000_000;

function numericDate(claims: Record<string, unknown>, name: string, required: boolean): number | null {
  const v = claims[name];
  if (v === undefined) {
    if (required) throw new JwtRejected(`no '${name}' claim`);
    return null;
  }
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new JwtRejected(`the '${name}' claim is not a NumericDate`);
  // Past a time value's range the expiry could neither be printed nor sent as
  // SaslAuthenticate's int64 session_lifetime_ms (a RangeError that closed the
  // connection); jose4j, under Kafka, cannot turn such seconds into long ms either.
  if (Math.abs(v) > MAX_NUMERIC_DATE_S) throw new JwtRejected(`the '${name}' claim ${v} is out of range (a NumericDate is at most ${MAX_NUMERIC_DATE_S} seconds either side of 1970-01-01)`);
  return Math.floor(v * 1000);
}

/** Checks the claims of a token whose signature was verified; `nowMs` is the broker's clock. */
export function validateClaims(claims: Record<string, unknown>, v: JwtValidation, nowMs: number): ValidatedToken {
  const skewMs = v.clockSkewSeconds * 1000;
  const exp = numericDate(claims, 'exp', true)!;
  const iat = numericDate(claims, 'iat', true)!;
  const nbf = numericDate(claims, 'nbf', false);
  if (nowMs >= exp + skewMs) throw new JwtRejected(`the JWT expired at ${new Date(exp).toISOString()} (clock skew ${v.clockSkewSeconds} s)`);
  if (nbf !== null && nowMs + skewMs < nbf) throw new JwtRejected(`the JWT is not valid before ${new Date(nbf).toISOString()} (clock skew ${v.clockSkewSeconds} s)`);
  if (nowMs + skewMs < iat) throw new JwtRejected(`the JWT is issued in the future (iat ${new Date(iat).toISOString()}, clock skew ${v.clockSkewSeconds} s)`);
  if (v.expectedIssuer !== null && claims.iss !== v.expectedIssuer) throw new JwtRejected(`issuer '${String(claims.iss)}' is not the expected '${v.expectedIssuer}'`);
  if (v.expectedAudience.length) {
    const aud = claims.aud;
    const list = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
    if (!list.some((a) => v.expectedAudience.includes(a))) throw new JwtRejected(`audience ${JSON.stringify(aud ?? null)} is none of the expected ${v.expectedAudience.join(', ')}`);
  }
  const sub = claims[v.subClaimName];
  if (typeof sub !== 'string' || sub.trim() === '') throw new JwtRejected(`no '${v.subClaimName}' claim (a non-empty string) for the principal`);
  const rawScope = claims[v.scopeClaimName];
  // Kafka keeps a string scope as one value and a list as it is.
  const scope = typeof rawScope === 'string' ? [rawScope] : Array.isArray(rawScope) ? rawScope.filter((s): s is string => typeof s === 'string') : [];
  return { principalName: sub.trim(), scope, expiresAtMs: exp, issuedAtMs: iat };
}
