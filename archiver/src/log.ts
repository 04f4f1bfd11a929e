// Minimal structured logger (one JSON object per line on stderr).
const LEVELS = { error: 0, warn: 1, info: 2, debug: 3 } as const;
export type Level = keyof typeof LEVELS;

export interface Logger {
  error(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  debug(msg: string, fields?: Record<string, unknown>): void;
}

export function createLogger(level: Level, base: Record<string, unknown> = {}): Logger {
  const max = LEVELS[level];
  const emit = (l: Level, msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS[l] > max) return;
    const rec: Record<string, unknown> = { ts: new Date().toISOString(), level: l, msg, ...base, ...fields };
    for (const [k, v] of Object.entries(rec)) if (v instanceof Error) rec[k] = { message: v.message, name: v.name };
    process.stderr.write(JSON.stringify(rec, (_k, v) => (typeof v === 'bigint' ? String(v) : v)) + '\n');
  };
  return {
    error: (m, f) => emit('error', m, f),
    warn: (m, f) => emit('warn', m, f),
    info: (m, f) => emit('info', m, f),
    debug: (m, f) => emit('debug', m, f),
  };
}
