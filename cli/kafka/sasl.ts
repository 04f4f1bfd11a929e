// SASL on a fresh connection: SaslHandshake v1 names the mechanism, then
// SaslAuthenticate carries its exchange (KIP-152). PLAIN (RFC 4616) is one
// message; SCRAM-SHA-256/512 (RFC 5802/7677) is client-first, server-first,
// client-final with the proof, and server-final with the signature the client
// checks.
import crypto from 'node:crypto';
import { check } from './errors.js';
import type { SaslSettings } from './config.js';

/** The two requests SASL needs, sent by the connection being authenticated. */
export interface SaslRequests {
  handshake(mechanism: string): Promise<{ errorCode: number; mechanisms: string[] }>;
  authenticate(authBytes: Buffer): Promise<{ errorCode: number; errorMessage: string | null; authBytes: Buffer }>;
}

export async function authenticate(c: SaslRequests, s: SaslSettings): Promise<void> {
  const hs = await c.handshake(s.mechanism);
  check(hs.errorCode, `SASL handshake (${s.mechanism})`, hs.mechanisms.length ? `enabled: ${hs.mechanisms.join(', ')}` : null);
  const step = async (bytes: Buffer): Promise<Buffer> => {
    const r = await c.authenticate(bytes);
    check(r.errorCode, `SASL ${s.mechanism} authentication`, r.errorMessage);
    return r.authBytes;
  };
  if (s.mechanism === 'PLAIN') {
    await step(Buffer.from(`\0${s.username}\0${s.password}`, 'utf8'));
    return;
  }
  const scram = new ScramClient(s.mechanism === 'SCRAM-SHA-256' ? 'sha256' : 'sha512', s.username, s.password);
  const serverFirst = await step(scram.first());
  const serverFinal = await step(scram.final(serverFirst));
  scram.verify(serverFinal);
}

/** The client side of one SCRAM exchange. */
export class ScramClient {
  private readonly nonce: string;
  private authMessage = '';
  private serverKey: Buffer = Buffer.alloc(0);

  constructor(private readonly hash: 'sha256' | 'sha512', private readonly username: string, private readonly password: string, nonce?: string) {
    this.nonce = nonce ?? crypto.randomBytes(24).toString('base64');
  }

  private bare(): string {
    return `n=${this.username.replace(/=/g, '=3D').replace(/,/g, '=2C')},r=${this.nonce}`;
  }

  first(): Buffer {
    return Buffer.from(`n,,${this.bare()}`, 'utf8');
  }

  final(serverFirst: Buffer): Buffer {
    const text = serverFirst.toString('utf8');
    const attrs = scramAttributes(text);
    const r = attrs.get('r');
    const salt = attrs.get('s');
    const iterations = Number(attrs.get('i'));
    if (!r || !r.startsWith(this.nonce) || !salt || !(iterations > 0)) throw new Error(`SASL ${this.hash}: bad server-first message`);
    const salted = crypto.pbkdf2Sync(this.password.normalize('NFKC'), Buffer.from(salt, 'base64'), iterations, this.hash === 'sha256' ? 32 : 64, this.hash);
    const clientKey = hmac(this.hash, salted, 'Client Key');
    const storedKey = crypto.createHash(this.hash).update(clientKey).digest();
    const withoutProof = `c=biws,r=${r}`;
    this.authMessage = `${this.bare()},${text},${withoutProof}`;
    const signature = hmac(this.hash, storedKey, this.authMessage);
    const proof = Buffer.alloc(clientKey.length);
    for (let i = 0; i < proof.length; i++) proof[i] = clientKey[i]! ^ signature[i]!;
    this.serverKey = hmac(this.hash, salted, 'Server Key');
    return Buffer.from(`${withoutProof},p=${proof.toString('base64')}`, 'utf8');
  }

  /** Checks the server's signature (v=...); a server error (e=...) or a wrong signature throws. */
  verify(serverFinal: Buffer): void {
    const attrs = scramAttributes(serverFinal.toString('utf8'));
    if (attrs.has('e')) throw new Error(`SASL SCRAM: server error ${attrs.get('e')}`);
    const expected = hmac(this.hash, this.serverKey, this.authMessage).toString('base64');
    if (attrs.get('v') !== expected) throw new Error('SASL SCRAM: the server signature does not match (not the server that holds the credential)');
  }
}

function hmac(hash: string, key: Buffer, data: string): Buffer {
  return crypto.createHmac(hash, key).update(data, 'utf8').digest();
}

function scramAttributes(text: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) m.set(part.slice(0, eq), part.slice(eq + 1));
  }
  return m;
}
