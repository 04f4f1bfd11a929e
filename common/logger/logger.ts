// The one structured logger of the broker and the archiver: pino, one JSON
// object per line on stderr, in one format for both processes:
//   {"level":"info","time":"2026-…Z","component":"broker",…fields,"msg":"…"}
// `level` is the label (not pino's number), `time` ISO-8601, Errors in fields
// are serialized (type, message, stack), bigints as strings, and the
// credentials of every URL in the line are replaced by `***`.
import { pino, stdSerializers, stdTimeFunctions, type DestinationStream } from 'pino';

export type Level = 'debug' | 'info' | 'warn' | 'error';
const LEVELS: readonly Level[] = ['debug', 'info', 'warn', 'error'];

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export interface LoggerOptions {
  /** Fields on every line after `component` (e.g. the archiver's id). */
  fields?: Record<string, unknown>;
  /** Where lines go (tests); stderr by default. */
  stream?: { write(line: string): unknown };
}

// `scheme://user:password@` (or `scheme://:password@`, `scheme://token@`) in
// any logged text: URLs reach the log through settings, error messages and
// stack traces, and their credentials must not.
const URL_CREDENTIALS = /([a-z][a-z0-9+.-]*:\/\/)[^\s/"'\\]*@/gi; // greedy: a password may hold '@'

/** The text with the credentials of every URL in it replaced by `***`. */
export function redactSecrets(text: string): string {
  return text.replace(URL_CREDENTIALS, '$1***@');
}

/** Top-level Errors serialized (pino's own serializer does `err`), bigints as strings. */
function serializable(fields: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | null = null;
  for (const k in fields) {
    const v = fields[k];
    if ((v instanceof Error && k !== 'err') || typeof v === 'bigint') {
      out ??= { ...fields };
      out[k] = typeof v === 'bigint' ? String(v) : stdSerializers.err(v as Error);
    }
  }
  return out ?? fields;
}

export function isLevel(s: string): s is Level {
  return LEVELS.some((l) => l === s);
}

/** A logger at `level` (lines below it are dropped) whose lines carry `component`. */
export function createLogger(level: Level, component: string, opts: LoggerOptions = {}): Logger {
  const out = opts.stream ?? process.stderr;
  const dest: DestinationStream = { write: (line: string) => { out.write(redactSecrets(line)); } };
  const p = pino({
    level: isLevel(level) ? level : 'info',
    base: { component, ...opts.fields },
    timestamp: stdTimeFunctions.isoTime,
    formatters: {
      level: (label) => ({ level: label }),
      log: serializable,
    },
  }, dest);
  return {
    debug: (m, f) => (f ? p.debug(f, m) : p.debug(m)),
    info: (m, f) => (f ? p.info(f, m) : p.info(m)),
    warn: (m, f) => (f ? p.warn(f, m) : p.warn(m)),
    error: (m, f) => (f ? p.error(f, m) : p.error(m)),
  };
}
