// What every Kafka-protocol command shares: the connection flags
// (--bootstrap-server, --command-config), argument parsing (node:util
// parseArgs, strict, the resource name as a positional), tables and output.
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { clientConfig, parseProperties, type ClientConfig } from '../kafka/config.js';
import { CliUsageError } from '../kafka/errors.js';
import { KafkaClient } from '../kafka/client.js';

export type Options = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

export const CONNECTION_OPTIONS = {
  'bootstrap-server': { type: 'string' },
  'command-config': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

export const DEFAULT_BOOTSTRAP = '127.0.0.1:9092';

export const CONNECTION_USAGE = `  --bootstrap-server H:P    broker(s) to start from, comma-separated (default ${DEFAULT_BOOTSTRAP}; env RUNNEL_BOOTSTRAP_SERVER)
  --command-config FILE     Kafka client properties: security.protocol, ssl.truststore.location (PEM),
                            sasl.mechanism (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512), sasl.jaas.config
  -h, --help                this help
`;

export interface Parsed {
  values: Values;
  positionals: string[];
}

export function parse(args: string[], options: Options): Parsed {
  try {
    const r = parseArgs({ args, options: { ...CONNECTION_OPTIONS, ...options }, strict: true, allowPositionals: true });
    return { values: r.values as Values, positionals: r.positionals };
  } catch (e) {
    if ((e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) throw new CliUsageError((e as Error).message);
    throw e;
  }
}

export function str(v: Values, k: string): string | undefined {
  const x = v[k];
  return typeof x === 'string' ? x : undefined;
}

export function list(v: Values, k: string): string[] {
  const x = v[k];
  return Array.isArray(x) ? x.filter((e): e is string => typeof e === 'string') : typeof x === 'string' ? [x] : [];
}

/** A whole number within [min, max]; a usage error names the flag otherwise. */
export function int(v: Values, k: string, min = 0, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const s = str(v, k);
  if (s === undefined) return undefined;
  const n = Number(s);
  if (!/^-?\d+$/.test(s) || n < min || n > max) throw new CliUsageError(`--${k} ${s}: expected a whole number ${min} or more`);
  return n;
}

/** `k=v` pairs of a repeatable flag, in order. */
export function pairs(items: string[], flag: string): Array<[string, string]> {
  return items.map((it) => {
    const eq = it.indexOf('=');
    if (eq <= 0) throw new CliUsageError(`--${flag} ${it}: expected key=value`);
    return [it.slice(0, eq), it.slice(eq + 1)];
  });
}

export function configFrom(v: Values, env: NodeJS.ProcessEnv = process.env): ClientConfig {
  const file = str(v, 'command-config');
  const props = file ? parseProperties(readFileSync(file, 'utf8')) : new Map<string, string>();
  return clientConfig(str(v, 'bootstrap-server') ?? env.RUNNEL_BOOTSTRAP_SERVER ?? DEFAULT_BOOTSTRAP, props);
}

/** Runs `f` with a connected client and closes it after. */
export async function withClient<T>(v: Values, f: (c: KafkaClient) => Promise<T>): Promise<T> {
  const client = await KafkaClient.connect(configFrom(v));
  try {
    return await f(client);
  } finally {
    client.close();
  }
}

/** Left-aligned columns, two spaces apart; columns in `right` right-aligned (numbers). */
export function table(header: string[], rows: string[][], right: ReadonlySet<number> = new Set()): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]): string => r.map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Writes to stdout and resolves once it is flushed (or buffered by the stream). */
export function out(text: string | Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.write(text, (e) => (e ? reject(e) : resolve()));
  });
}

/** The subcommand and the resource name: `topic create NAME`. */
export function subcommand(positionals: string[], known: readonly string[], group: string): string {
  const sub = positionals[0];
  if (sub === undefined) throw new CliUsageError(`${group}: which one? ${known.join(' | ')}`);
  if (!known.includes(sub)) throw new CliUsageError(`${group} ${sub}: unknown; expected ${known.join(' | ')}`);
  return sub;
}

export function nameArg(positionals: string[], what: string, at = 1): string {
  const n = positionals[at];
  if (n === undefined || n === '') throw new CliUsageError(`missing ${what}`);
  if (positionals.length > at + 1) throw new CliUsageError(`unexpected argument ${positionals[at + 1]}`);
  return n;
}
