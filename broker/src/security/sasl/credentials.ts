// SCRAM credentials as Kafka keeps them (RFC 5802 section 3): the salt, the
// iteration count, StoredKey = H(ClientKey) and ServerKey. Neither the
// password nor the salted password is ever stored.
import { createHash, createHmac, pbkdf2, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const pbkdf2Async = promisify(pbkdf2);

export interface ScramMechanism {
  /** The SASL mechanism name, e.g. "SCRAM-SHA-256". */
  readonly name: 'SCRAM-SHA-256' | 'SCRAM-SHA-512';
  /** Kafka's ScramMechanism type, the int8 of Alter/DescribeUserScramCredentials. */
  readonly type: number;
  /** node:crypto digest name. */
  readonly hash: 'sha256' | 'sha512';
  readonly hashBytes: number;
  /** Kafka's bounds on the iteration count (ScramMechanism.minIterations/maxIterations). */
  readonly minIterations: number;
  readonly maxIterations: number;
}

export const SCRAM_SHA_256: ScramMechanism = { name: 'SCRAM-SHA-256', type: 1, hash: 'sha256', hashBytes: 32, minIterations: 4096, maxIterations: 16384 };
export const SCRAM_SHA_512: ScramMechanism = { name: 'SCRAM-SHA-512', type: 2, hash: 'sha512', hashBytes: 64, minIterations: 4096, maxIterations: 16384 };
export const SCRAM_MECHANISMS: readonly ScramMechanism[] = [SCRAM_SHA_256, SCRAM_SHA_512];

export function scramMechanismByName(name: string): ScramMechanism | undefined {
  return SCRAM_MECHANISMS.find((m) => m.name === name);
}

export function scramMechanismByType(type: number): ScramMechanism | undefined {
  return SCRAM_MECHANISMS.find((m) => m.type === type);
}

export interface ScramCredential {
  salt: Buffer;
  iterations: number;
  storedKey: Buffer;
  serverKey: Buffer;
}

export function hmac(m: ScramMechanism, key: Buffer, data: Buffer | string): Buffer {
  return createHmac(m.hash, key).update(data).digest();
}

export function digest(m: ScramMechanism, data: Buffer): Buffer {
  return createHash(m.hash).update(data).digest();
}

/** Hi(password, salt, i) of RFC 5802: PBKDF2 with HMAC-H and the hash's output length. Kafka applies no SASLprep. */
export async function saltedPassword(m: ScramMechanism, password: string, salt: Buffer, iterations: number): Promise<Buffer> {
  return pbkdf2Async(Buffer.from(password, 'utf8'), salt, iterations, m.hashBytes, m.hash);
}

/** The stored credential from a salted password (what AlterUserScramCredentials carries); the salted password is not kept. */
export function credentialFromSaltedPassword(m: ScramMechanism, salted: Buffer, salt: Buffer, iterations: number): ScramCredential {
  const clientKey = hmac(m, salted, 'Client Key');
  return { salt, iterations, storedKey: digest(m, clientKey), serverKey: hmac(m, salted, 'Server Key') };
}

export async function credentialFromPassword(m: ScramMechanism, password: string, salt: Buffer, iterations: number): Promise<ScramCredential> {
  return credentialFromSaltedPassword(m, await saltedPassword(m, password, salt, iterations), salt, iterations);
}

/** Whether `password` matches a stored credential (SASL/PLAIN against SCRAM users), compared in constant time. */
export async function passwordMatches(m: ScramMechanism, password: string, cred: ScramCredential): Promise<boolean> {
  const c = await credentialFromPassword(m, password, cred.salt, cred.iterations);
  return constantTimeEqual(c.storedKey, cred.storedKey);
}

/** Constant-time equality; buffers of different lengths are unequal (their lengths are not secret here). */
export function constantTimeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Kafka's ScramCredentialUtils text form: `salt=<b64>,stored_key=<b64>,server_key=<b64>,iterations=<n>`. */
export function formatCredential(c: ScramCredential): string {
  return `salt=${c.salt.toString('base64')},stored_key=${c.storedKey.toString('base64')},server_key=${c.serverKey.toString('base64')},iterations=${c.iterations}`;
}

export function parseCredential(text: string): ScramCredential | null {
  const kv = new Map<string, string>();
  for (const part of text.split(',')) {
    const i = part.indexOf('=');
    if (i > 0) kv.set(part.slice(0, i), part.slice(i + 1));
  }
  const salt = kv.get('salt');
  const stored = kv.get('stored_key');
  const server = kv.get('server_key');
  const iterations = Number(kv.get('iterations'));
  if (salt === undefined || stored === undefined || server === undefined || !Number.isInteger(iterations)) return null;
  return { salt: Buffer.from(salt, 'base64'), iterations, storedKey: Buffer.from(stored, 'base64'), serverKey: Buffer.from(server, 'base64') };
}

/** One user's credential for one mechanism, as listed by DescribeUserScramCredentials. */
export interface ScramCredentialInfo {
  mechanism: ScramMechanism;
  iterations: number;
}

/**
 * Where SCRAM credentials live (Redis in the broker: redis/redis-credential-store.ts).
 * Reads go to the store every time, so a change is seen by every broker at once.
 */
export interface CredentialStore {
  get(user: string, mechanism: ScramMechanism): Promise<ScramCredential | null>;
  /** Every user that has at least one credential, with its mechanisms. */
  list(): Promise<Map<string, ScramCredentialInfo[]>>;
  /** Applies deletions and upsertions together (one atomic write). */
  alter(deletions: Array<{ user: string; mechanism: ScramMechanism }>, upsertions: Array<{ user: string; mechanism: ScramMechanism; credential: ScramCredential }>): Promise<void>;
}
