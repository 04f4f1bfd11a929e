// SASL/OAUTHBEARER server (RFC 7628, KIP-255) as Kafka's OAuthBearerSaslServer,
// with the token checks of its broker validator (KIP-768):
// - the client's one message is `n,[a=<authzid>],\x01auth=Bearer <token>\x01[key=value\x01...]\x01`
//   (the key=value pairs other than auth are SASL extensions, KIP-342: accepted);
//   a message of another form fails at once with Kafka's generic message;
// - a token that does not validate is answered, as RFC 7628 section 3.2.2
//   says, with the JSON error `{"status":"invalid_token"}` and the exchange
//   stays open; the client then sends a lone \x01 and that fails with the
//   same JSON text as the error message (SASL_AUTHENTICATION_FAILED);
// - a valid token authenticates `User:<sub>`; its exp bounds the session
//   (credentialExpiresAtMs; KIP-368 re-authentication before that).
import { errors } from 'jose';
import { scramFailureMessage } from './scram.js';
import { SaslAuthenticationFailure, type SaslMechanismServer } from './mechanism.js';
import { decodeJwt, JwtRejected, rejection, verifyJwt, type JwtValidation, type ValidatedToken } from './jwt.js';
import type { VerificationKeySource } from './jwks.js';

export const OAUTHBEARER = 'OAUTHBEARER';

/** RFC 7628's error status for a token the server does not accept (Kafka sends no scope or openid-configuration). */
export const INVALID_TOKEN_RESPONSE = '{"status":"invalid_token"}';

const SEPARATOR = '\u0001';
// Kafka's OAuthBearerClientInitialResponse grammar: a saslname authzid, key=value pairs each ended by \x01.
const SASLNAME = '(?:[\\x01-\\x2B\\x2D-\\x3C\\x3E-\\x7F]|=2C|=3D)+';
const KVPAIRS = '(?:[A-Za-z]+=[\\x21-\\x7E \\t\\r\\n]+\\x01)*';
const CLIENT_INITIAL_RESPONSE = new RegExp(`^n,(?:a=(${SASLNAME}))?,\\x01(${KVPAIRS})\\x01$`);
const AUTH = /^(\w+) +([-_~+/.a-zA-Z0-9]+=*)$/;

export interface ClientInitialResponse {
  authorizationId: string;
  token: string;
  extensions: Map<string, string>;
}

/** Parses the client's message; null when it is not one. */
export function parseClientInitialResponse(message: Buffer): ClientInitialResponse | null {
  const m = CLIENT_INITIAL_RESPONSE.exec(message.toString('utf8'));
  if (!m) return null;
  const pairs = new Map<string, string>();
  for (const kv of m[2]!.split(SEPARATOR)) {
    if (!kv) continue;
    const i = kv.indexOf('=');
    pairs.set(kv.slice(0, i), kv.slice(i + 1));
  }
  const auth = pairs.get('auth');
  pairs.delete('auth');
  const a = auth === undefined ? null : AUTH.exec(auth);
  if (!a || a[1]!.toLowerCase() !== 'bearer') return null;
  return { authorizationId: m[1] ?? '', token: a[2]!, extensions: pairs };
}

/** Validates a bearer token: its signature against the JWKS, then its claims. Throws JwtRejected. */
export async function validateToken(token: string, source: VerificationKeySource, v: JwtValidation, nowMs: number): Promise<ValidatedToken> {
  const { header } = decodeJwt(token);
  const keys = await source.keys();
  try {
    return await verifyJwt(token, keys, v, nowMs);
  } catch (e) {
    // An unknown kid may be a key the provider added since the JWKS was read.
    const again = e instanceof errors.JWKSNoMatchingKey && typeof header.kid === 'string' ? await source.keys(header.kid) : keys;
    if (again === keys) throw rejection(e, header, v);
    try {
      return await verifyJwt(token, again, v, nowMs);
    } catch (e2) {
      throw rejection(e2, header, v);
    }
  }
}

export class OAuthBearerServer implements SaslMechanismServer {
  readonly mechanism = OAUTHBEARER;
  complete = false;
  username: string | null = null;
  /** The token's exp (ms since the epoch) once complete: the session may not outlive it. */
  credentialExpiresAtMs: number | null = null;
  /** Why the last token was refused (for the broker's log; the client only sees invalid_token). */
  rejection: string | null = null;
  private errorSent = false;

  constructor(
    private readonly keys: VerificationKeySource,
    private readonly validation: JwtValidation,
    private readonly clock: () => number = Date.now,
    private readonly reauthenticating = false,
  ) {}

  async evaluate(token: Buffer): Promise<Buffer> {
    if (this.complete) throw new SaslAuthenticationFailure(scramFailureMessage(OAUTHBEARER, this.reauthenticating));
    // The client's answer to our error: the exchange ends with that error (RFC 7628 section 3.2.3).
    if (this.errorSent && token.length === 1 && token[0] === 1) throw new SaslAuthenticationFailure(INVALID_TOKEN_RESPONSE);
    this.errorSent = false;
    const msg = parseClientInitialResponse(token);
    if (!msg) throw new SaslAuthenticationFailure(scramFailureMessage(OAUTHBEARER, this.reauthenticating));
    let valid: ValidatedToken;
    try {
      valid = await validateToken(msg.token, this.keys, this.validation, this.clock());
    } catch (e) {
      if (!(e instanceof JwtRejected)) throw e;
      this.rejection = e.message;
      this.errorSent = true;
      return Buffer.from(INVALID_TOKEN_RESPONSE, 'utf8');
    }
    if (msg.authorizationId !== '' && msg.authorizationId !== valid.principalName) {
      throw new SaslAuthenticationFailure(`Authentication failed: Client requested an authorization id (${msg.authorizationId}) that is different from the token's principal name (${valid.principalName})`);
    }
    this.username = valid.principalName;
    this.credentialExpiresAtMs = valid.expiresAtMs;
    this.complete = true;
    return Buffer.alloc(0);
  }
}
