// The one structured logger of the broker and the archiver: pino, one JSON
// object per line on stderr, in one format for both processes:
//   {"level":"info","time":"2026-…Z","component":"broker",…fields,"msg":"…"}
// `level` is the label (not pino's number), `time` ISO-8601, Errors in fields
// are serialized (type, message, stack), bigints as strings, and the
// credentials of every URL in the line are replaced by `***`.
//
// `log.format=pretty` (RUNNEL_LOG_FORMAT) is for a person at a terminal: the
// same record, after redaction, rendered by pino-pretty's prettyFactory (the
// synchronous in-process formatter, no transport worker) as one line
//   [2026-12-04 03:45:42.123] INFO (broker): runnel broker listening host=127.0.0.1 port=9092
// with serialized Errors printed under it, pino-pretty style. JSON stays the
// default everywhere, a TTY included: deploy/ and the tests parse it.
import { pino, stdSerializers, stdTimeFunctions, type DestinationStream } from 'pino';
import { prettyFactory } from 'pino-pretty';
import type { LogFormat } from './format.js';

export type Level = 'debug' | 'info' | 'warn' | 'error';
const LEVELS: readonly Level[] = ['debug', 'info', 'warn', 'error'];

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export { isLogFormat, type LogFormat } from './format.js';

// The process's format, set once by the command that read the settings
// (`runnel broker`, `runnel archiver`); loggers made without `format` follow
// it, those made at import time (before the settings are read) included.
let processFormat: LogFormat = 'json';

/** Sets the format of every logger made without an explicit `format`. */
export function setLogFormat(format: LogFormat): void {
  processFormat = format;
}

export interface LoggerOptions {
  /** Fields on every line after `component` (e.g. the archiver's id). */
  fields?: Record<string, unknown>;
  /** Where lines go (tests); stderr by default. */
  stream?: { write(line: string): unknown; isTTY?: boolean };
  /** json or pretty; by default the process's (setLogFormat), json unless set. */
  format?: LogFormat;
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

// pino's record keys, not fields: pretty mode prints them in the line's head.
const HEAD_KEYS = new Set(['level', 'time', 'msg', 'component']);

/** A serialized Error (stdSerializers.err): printed as a block under the line, stack included. */
function isSerializedError(v: unknown): boolean {
  return typeof v === 'object' && v !== null && typeof (v as { message?: unknown }).message === 'string'
    && typeof (v as { stack?: unknown }).stack === 'string';
}

/** `value` of a `key=value` field: bare when it is a plain token, JSON otherwise (strings with spaces, quotes or `=`, objects). */
function fieldValue(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  return JSON.stringify(v) ?? String(v);
}

type Prettifier = (record: Record<string, unknown>) => string;
const prettifiers = new Map<string, Prettifier>();

/** pino-pretty's factory for one colour choice and set of error keys (built once each). */
function prettifier(colorize: boolean, errorKeys: string[]): Prettifier {
  const id = `${colorize}:${errorKeys.join(',')}`;
  let f = prettifiers.get(id);
  if (!f) {
    f = prettyFactory({
      colorize,
      translateTime: 'UTC:yyyy-mm-dd HH:MM:ss.l', // the JSON line's time is UTC too
      ignore: 'pid,hostname',
      errorLikeObjectKeys: errorKeys,
      singleLine: false,
    });
    prettifiers.set(id, f);
  }
  return f;
}

/** One JSON line of createLogger rendered for a terminal: `[time] LEVEL (component): msg k=v …`, then Errors. */
export function prettyLine(jsonLine: string, colorize = false): string {
  const rec = JSON.parse(jsonLine) as Record<string, unknown>;
  const fields: string[] = [];
  const errors: Record<string, unknown> = {};
  for (const k in rec) {
    if (HEAD_KEYS.has(k)) continue;
    if (isSerializedError(rec[k])) errors[k] = rec[k];
    else fields.push(`${k}=${fieldValue(rec[k])}`);
  }
  const msg = [typeof rec.msg === 'string' ? rec.msg : '', ...fields].filter(Boolean).join(' ');
  const errorKeys = Object.keys(errors);
  // pino-pretty prints `name` as `(name)` after the level: the component goes there
  return prettifier(colorize, errorKeys)({ ...errors, level: rec.level, time: rec.time, name: rec.component, msg });
}

/** A logger at `level` (lines below it are dropped) whose lines carry `component`. */
export function createLogger(level: Level, component: string, opts: LoggerOptions = {}): Logger {
  const out = opts.stream ?? process.stderr;
  // colour only for a terminal that did not ask for none (https://no-color.org)
  const colorize = out.isTTY === true && !process.env.NO_COLOR;
  const dest: DestinationStream = {
    write: (line: string) => {
      const safe = redactSecrets(line);
      out.write((opts.format ?? processFormat) === 'pretty' ? prettyLine(safe, colorize) : safe);
    },
  };
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
