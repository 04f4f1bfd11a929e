// SASL/SCRAM-SHA-256 and SCRAM-SHA-512 server (RFC 5802, RFC 7677) as Kafka
// runs it: gs2 header `n,,` or `n,a=<authzid>,` (no channel binding), the
// authzid, when given, must be the user; Kafka's extensions after the nonce
// (e.g. tokenauth=true) are accepted and ignored. Every failure is reported
// with Kafka's one message, whatever went wrong, so a client learns nothing
// about which part failed. An unknown user gets a made-up salt and fails at
// the proof, like a wrong password.
import { createHmac, randomBytes } from 'node:crypto';
import { constantTimeEqual, digest, hmac, type ScramCredential, type ScramMechanism } from './credentials.js';
import { SaslAuthenticationFailure, type SaslMechanismServer } from './mechanism.js';

export type ScramCredentialLookup = (user: string, mechanism: ScramMechanism) => Promise<ScramCredential | null>;

/** Kafka's message for any SCRAM failure (SaslServerAuthenticator). */
export function scramFailureMessage(mechanism: string, reauthenticating = false): string {
  return `Authentication failed during ${reauthenticating ? 're-authentication' : 'authentication'} due to invalid credentials with SASL mechanism ${mechanism}`;
}

/** RFC 5802 saslname: `=2C` is ',' and `=3D` is '='; any other '=' is malformed. */
export function decodeSaslName(s: string): string | null {
  if (/=(?!2C|3D)/.test(s)) return null;
  return s.replace(/=2C/g, ',').replace(/=3D/g, '=');
}

/** A per-process key for made-up salts: the same unknown user always sees the same salt. */
const FAKE_SALT_KEY = randomBytes(32);
const FAKE_ITERATIONS = 4096;

interface ClientFirst { gs2Header: string; bare: string; username: string; nonce: string }

const PRINTABLE = /^[\x21-\x2b\x2d-\x7e]+$/; // RFC 5802 printable: no ','

function parseClientFirst(text: string): ClientFirst | null {
  const m = /^n,(?:a=([^,]*))?,(n=([^,]*),r=([^,]*)(?:,.*)?)$/s.exec(text);
  if (!m) return null;
  const username = decodeSaslName(m[3]!);
  const nonce = m[4]!;
  if (username === null || username === '' || !PRINTABLE.test(nonce)) return null;
  if (m[1] !== undefined && m[1] !== '' && decodeSaslName(m[1]) !== username) return null;
  return { gs2Header: text.slice(0, text.length - m[2]!.length), bare: m[2]!, username, nonce };
}

export class ScramServer implements SaslMechanismServer {
  private state: 'first' | 'final' | 'done' = 'first';
  private first: ClientFirst | null = null;
  private serverFirst = '';
  private combinedNonce = '';
  private credential: ScramCredential | null = null;
  username: string | null = null;

  /** `serverNonce`: fixed only by tests (RFC 7677's example); otherwise 32 random bytes, base64. */
  constructor(
    private readonly m: ScramMechanism,
    private readonly lookup: ScramCredentialLookup,
    private readonly serverNonce: string = randomBytes(24).toString('base64'),
    private readonly reauthenticating = false,
  ) {}

  get mechanism(): string { return this.m.name; }
  get complete(): boolean { return this.state === 'done'; }

  async evaluate(token: Buffer): Promise<Buffer> {
    try {
      if (this.state === 'first') return await this.onClientFirst(token.toString('utf8'));
      if (this.state === 'final') return this.onClientFinal(token.toString('utf8'));
    } catch (e) {
      if (e instanceof SaslAuthenticationFailure) throw e;
      throw this.fail();
    }
    throw this.fail();
  }

  private fail(): SaslAuthenticationFailure {
    this.state = 'done';
    this.username = null;
    return new SaslAuthenticationFailure(scramFailureMessage(this.m.name, this.reauthenticating));
  }

  private async onClientFirst(text: string): Promise<Buffer> {
    const first = parseClientFirst(text);
    if (!first) throw this.fail();
    this.first = first;
    const stored = await this.lookup(first.username, this.m);
    this.credential = stored;
    const salt = stored ? stored.salt : createHmac('sha256', FAKE_SALT_KEY).update(`${this.m.name}:${first.username}`).digest().subarray(0, 16);
    const iterations = stored ? stored.iterations : FAKE_ITERATIONS;
    this.combinedNonce = first.nonce + this.serverNonce;
    this.serverFirst = `r=${this.combinedNonce},s=${salt.toString('base64')},i=${iterations}`;
    this.state = 'final';
    return Buffer.from(this.serverFirst, 'utf8');
  }

  private onClientFinal(text: string): Buffer {
    const first = this.first!;
    const m = /^c=([^,]*),r=([^,]*),(?:.*,)?p=([A-Za-z0-9+/=]+)$/s.exec(text);
    if (!m) throw this.fail();
    const withoutProof = text.slice(0, text.lastIndexOf(',p='));
    const channelBinding = Buffer.from(m[1]!, 'base64').toString('utf8');
    // Kafka checks only that the nonce ends with the server-first nonce: librdkafka (2.0) sends the client
    // nonce twice ("r=<cnonce><cnonce><snonce>"). The server's fresh nonce is there either way.
    if (channelBinding !== first.gs2Header || !m[2]!.endsWith(this.combinedNonce)) throw this.fail();
    const cred = this.credential;
    const proof = Buffer.from(m[3]!, 'base64');
    const authMessage = `${first.bare},${this.serverFirst},${withoutProof}`;
    if (!cred || proof.length !== this.m.hashBytes) throw this.fail();
    // ClientKey = ClientProof XOR ClientSignature; the client knows the password iff H(ClientKey) = StoredKey.
    const clientSignature = hmac(this.m, cred.storedKey, authMessage);
    const clientKey = Buffer.alloc(proof.length);
    for (let i = 0; i < proof.length; i++) clientKey[i] = proof[i]! ^ clientSignature[i]!;
    if (!constantTimeEqual(digest(this.m, clientKey), cred.storedKey)) throw this.fail();
    this.username = first.username;
    this.state = 'done';
    return Buffer.from(`v=${hmac(this.m, cred.serverKey, authMessage).toString('base64')}`, 'utf8');
  }
}
