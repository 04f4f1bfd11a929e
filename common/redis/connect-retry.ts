// Waiting for Redis at start-up, shared by the broker and the archiver: a
// Redis that is not up yet (started by the same compose file, restarting, a
// cluster still forming) is retried for a bounded time, like Kafka's
// zookeeper.connection.timeout.ms; a setting that can never work fails at once.
import { redactSecrets, type Logger } from '../logger/logger.js';
import { isTlsConfigError } from './tls-options.js';
import { RunnelError } from '../errors.js';

/** Why a connection failed, in words: "connection refused" rather than ECONNREFUSED or "Connection is closed.". */
export function connectFailureReason(e: unknown): string {
  const err = e as { code?: string; message?: string; errors?: unknown[] } | null;
  const code = err?.code ?? (Array.isArray(err?.errors) ? (err.errors[0] as { code?: string } | undefined)?.code : undefined);
  const words: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'host name lookup failed',
    ETIMEDOUT: 'connection timed out',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'network unreachable',
    ECONNRESET: 'connection reset',
  };
  const msg = (err?.message ?? String(e)).trim();
  if (code && words[code]) return `${words[code]} (${msg || code})`;
  if (/ECONNREFUSED/.test(msg)) return `connection refused (${msg})`;
  return msg || String(e);
}

/** Failed attempts are retried this often at start-up. */
export const CONNECT_RETRY_MS = 200;

export interface ConnectRetryOptions {
  /** The Redis URL, shown with its password redacted. */
  url: string;
  /** How long to keep trying, from the first attempt (each attempt is bounded by the caller). */
  timeoutMs: number;
  /** The setting behind timeoutMs, named when giving up ("redis.connection.timeout.ms"). */
  setting: string;
  /** Where the URL comes from, named when giving up ("--redis / redis.url"). */
  urlSetting: string;
  /** The TLS settings, named when a handshake is refused ("redis.tls.*"). */
  tlsSettings: string;
  logger: Logger;
  /** Releases what a failed attempt left behind, before giving up. */
  cleanup?: () => Promise<void>;
}

/**
 * Runs `attempt` until it succeeds. A configuration error (RunnelError, a
 * refused certificate or handshake) is thrown at once;
 * anything else is retried every CONNECT_RETRY_MS until `timeoutMs` has passed
 * since the first attempt, with one "waiting for redis" line, and then thrown
 * as "cannot connect to redis at <url>: <reason> (gave up after N attempts
 * ...)". Returns the number of attempts it took.
 */
export async function connectWithRetry(attempt: () => Promise<void>, o: ConnectRetryOptions): Promise<number> {
  const shown = redactSecrets(o.url);
  const deadline = Date.now() + o.timeoutMs;
  for (let n = 1; ; n++) {
    try {
      await attempt();
      if (n > 1) o.logger.info('redis reachable', { url: shown, attempts: n });
      return n;
    } catch (e) {
      if (e instanceof RunnelError) {
        await o.cleanup?.().catch(() => undefined);
        throw e;
      }
      // A refused certificate or handshake does not heal by waiting: fail now, saying why.
      if (isTlsConfigError(e)) {
        await o.cleanup?.().catch(() => undefined);
        throw new Error(`redis TLS handshake failed: ${(e instanceof Error ? e.message : String(e)).trim()} (check ${o.urlSetting} and ${o.tlsSettings})`, { cause: e });
      }
      const reason = connectFailureReason(e);
      if (Date.now() + CONNECT_RETRY_MS > deadline) {
        await o.cleanup?.().catch(() => undefined);
        throw new Error(`cannot connect to redis at ${shown}: ${reason} (gave up after ${n} attempt${n === 1 ? '' : 's'} in ${o.timeoutMs} ms, ${o.setting}; check ${o.urlSetting})`, { cause: e });
      }
      if (n === 1) o.logger.warn('waiting for redis', { url: shown, reason, timeoutMs: o.timeoutMs, retryMs: CONNECT_RETRY_MS });
      await new Promise((r) => setTimeout(r, CONNECT_RETRY_MS));
    }
  }
}
