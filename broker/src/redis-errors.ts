// Connection failures in words, for messages that name what failed.

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
