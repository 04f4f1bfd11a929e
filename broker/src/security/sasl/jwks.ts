// The broker's JWKS (RFC 7517) for SASL/OAUTHBEARER, from
// sasl.oauthbearer.jwks.endpoint.url as Kafka reads it:
// - file://<path>: read again whenever the file's modification time changes
//   (Kafka 4.x's CachedFile lastModified policy);
// - http:// or https://: fetched on first use, again once
//   sasl.oauthbearer.jwks.endpoint.refresh.ms has passed, and at once when a
//   token names a kid the cached set lacks, i.e. after the provider rotated its
//   keys (like Kafka's RefreshingHttpsJwks: one kid causes at most one fetch
//   per MISSING_KID_REFETCH_MS, and such fetches are MISSING_KID_MIN_GAP_MS
//   apart, so made-up kids cannot turn tokens into a stream of fetches).
//   A failed fetch keeps the keys already known; with none known, tokens are refused.
// Keys are public RSA and EC signature keys, imported by jose; keys of another
// kind, for encryption (use=enc), or that do not import, are skipped.
import { createLocalJWKSet, importJWK, type JWK } from 'jose';
import { promises as fsp } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { JWS_ALGORITHMS, type VerificationKeys } from './jwt.js';

/** How soon the same unknown kid may cause another fetch of an HTTP JWKS. */
export const MISSING_KID_REFETCH_MS = 10_000;
/** The least time between two fetches caused by unknown kids. */
export const MISSING_KID_MIN_GAP_MS = 1_000;
/** Unknown kids remembered at once (their cool-down); more are not remembered and fetch nothing. */
const MISSING_KID_MAX_ENTRIES = 64;

/** The verification keys a token may be checked against. */
export interface VerificationKeySource {
  /** The current keys; `missingKid`: a token named a kid not among the keys last returned. */
  keys(missingKid?: string): Promise<VerificationKeys>;
}

/** A set of keys (already checked to import). */
export function verificationKeys(keys: readonly JWK[]): VerificationKeys {
  return { keys, select: createLocalJWKSet({ keys: [...keys] }) };
}

const NO_KEYS = verificationKeys([]);
/** An algorithm the key is imported with to check it: its own, else one its kty and crv allow. */
const PROBE_ALG: ReadonlyMap<string, string> = new Map([['RSA', 'RS256'], ['P-256', 'ES256'], ['P-384', 'ES384'], ['P-521', 'ES512']]);

/** The public members of a JWK usable for signatures, or null when it is none. */
async function usableKey(jwk: unknown): Promise<JWK | null> {
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) return null;
  const j = jwk as Record<string, unknown>;
  if ((j.kty !== 'RSA' && j.kty !== 'EC') || (j.use !== undefined && j.use !== 'sig')) return null;
  const named = { ...(typeof j.kid === 'string' ? { kid: j.kid } : {}), ...(typeof j.alg === 'string' ? { alg: j.alg } : {}) };
  // Only the public members: a JWKS that (wrongly) publishes a private key still yields the public one.
  const pub = (j.kty === 'RSA' ? { kty: 'RSA', n: j.n, e: j.e, ...named } : { kty: 'EC', crv: j.crv, x: j.x, y: j.y, ...named }) as JWK;
  if (pub.alg !== undefined && !JWS_ALGORITHMS.includes(pub.alg)) return null;
  const alg = pub.alg ?? PROBE_ALG.get(pub.kty === 'RSA' ? 'RSA' : String(pub.crv));
  if (alg === undefined) return null;
  try {
    await importJWK(pub, alg);
    return pub;
  } catch {
    // A malformed key is skipped, as jose4j does; the others stay usable.
    return null;
  }
}

/** The usable keys of a JWKS document; throws when it is not one. */
export async function parseJwks(text: string): Promise<VerificationKeys> {
  const doc = JSON.parse(text) as unknown;
  const list = (doc as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(list)) throw new Error('not a JWKS: no "keys" array');
  const keys = await Promise.all(list.map(usableKey));
  return verificationKeys(keys.filter((k): k is JWK => k !== null));
}

/** A JWKS file, read again when it changes. */
export class FileJwks implements VerificationKeySource {
  private cached = NO_KEYS;
  private mtimeMs = -1;

  constructor(readonly path: string) {}

  async keys(): Promise<VerificationKeys> {
    try {
      const st = await fsp.stat(this.path);
      if (st.mtimeMs !== this.mtimeMs) {
        this.cached = await parseJwks(await fsp.readFile(this.path, 'utf8'));
        this.mtimeMs = st.mtimeMs;
      }
    } catch {
      // Unreadable or half-written: keep the last good keys, try again next time.
    }
    return this.cached;
  }
}

/** A JWKS endpoint, cached for refreshMs. */
export class HttpJwks implements VerificationKeySource {
  private cached = NO_KEYS;
  private fetchedAt = -Infinity;
  private inFlight: Promise<void> | null = null;
  /** Unknown kids that caused a fetch, and when. */
  private readonly missingKids = new Map<string, number>();
  private lastMissingFetch = -Infinity;

  constructor(
    readonly url: string,
    private readonly refreshMs: number,
    private readonly clock: () => number = Date.now,
    private readonly timeoutMs = 10_000,
  ) {}

  async keys(missingKid?: string): Promise<VerificationKeys> {
    const now = this.clock();
    if (now - this.fetchedAt >= this.refreshMs || (missingKid !== undefined && this.mayFetchFor(missingKid, now))) await this.refresh();
    return this.cached;
  }

  /** Whether an unknown kid may cause a fetch now (and remembers that it did). */
  private mayFetchFor(kid: string, now: number): boolean {
    for (const [k, at] of this.missingKids) if (now - at >= MISSING_KID_REFETCH_MS) this.missingKids.delete(k);
    const last = this.missingKids.get(kid);
    if (last !== undefined || now - this.lastMissingFetch < MISSING_KID_MIN_GAP_MS || this.missingKids.size >= MISSING_KID_MAX_ENTRIES) return false;
    this.missingKids.set(kid, now);
    this.lastMissingFetch = now;
    return true;
  }

  private refresh(): Promise<void> {
    // Authentications that arrive during a fetch wait for the same one.
    this.inFlight ??= (async () => {
      try {
        const res = await fetch(this.url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(this.timeoutMs) });
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        this.cached = await parseJwks(await res.text());
        this.fetchedAt = this.clock();
      } catch {
        // Keep the keys known; try again MISSING_KID_REFETCH_MS later rather than after a whole refresh period.
        this.fetchedAt = this.clock() - Math.max(0, this.refreshMs - MISSING_KID_REFETCH_MS);
      } finally {
        this.inFlight = null;
      }
    })();
    return this.inFlight;
  }
}

/** The key source of sasl.oauthbearer.jwks.endpoint.url. */
export function jwksSource(url: string, refreshMs: number): VerificationKeySource {
  return url.toLowerCase().startsWith('file:') ? new FileJwks(fileURLToPath(url)) : new HttpJwks(url, refreshMs);
}
