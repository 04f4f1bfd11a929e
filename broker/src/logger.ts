export type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

// `scheme://user:password@` (or `scheme://:password@`, `scheme://token@`) in
// any logged text: URLs reach the log through settings, error messages and
// stack traces, and their credentials must not.
const URL_CREDENTIALS = /([a-z][a-z0-9+.-]*:\/\/)[^\s/"'\\]*@/gi; // greedy: a password may hold '@'

/** The text with the credentials of every URL in it replaced by `***`. */
export function redactSecrets(text: string): string {
  return text.replace(URL_CREDENTIALS, '$1***@');
}

/** One JSON line per event on stderr; URL credentials are redacted. */
export function createLogger(level: Level, component: string): Logger {
  const min = ORDER[level] ?? ORDER.info;
  const emit = (lvl: Level, msg: string, fields?: Record<string, unknown>): void => {
    if (ORDER[lvl] < min) return;
    process.stderr.write(`${redactSecrets(JSON.stringify({ t: new Date().toISOString(), level: lvl, component, msg, ...fields }))}\n`);
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
}
