// `runnel archiver` flags, derived from the archiver's environment variables
// (ARCHIVER_ENV): RUNNEL_ARCHIVER_READ_COUNT -> --read-count,
// RUNNEL_S3_ENDPOINT -> --s3-endpoint, RUNNEL_REDIS_URL -> --redis (and
// --redis-url). A flag wins over its environment variable.
import type { ParseArgsConfig } from 'node:util';
import { ARCHIVER_ENV } from '../archiver/src/config.js';

export function flagOf(envName: string): string {
  if (envName === 'RUNNEL_REDIS_URL') return 'redis';
  return envName.replace(/^RUNNEL_(ARCHIVER_)?/, '').toLowerCase().replace(/_/g, '-');
}

export const ARCHIVER_FLAGS: ReadonlyArray<{ flag: string; env: string; kind: 'string' | 'bool'; help: string }> = ARCHIVER_ENV.map((e) => ({ flag: flagOf(e.name), env: e.name, kind: e.kind, help: e.help }));

export const ARCHIVER_OPTIONS: NonNullable<ParseArgsConfig['options']> = {
  help: { type: 'boolean', short: 'h' },
  'redis-url': { type: 'string' },
  ...Object.fromEntries(ARCHIVER_FLAGS.map((f) => [f.flag, { type: f.kind === 'bool' ? 'boolean' : 'string' }])),
};

/** The environment the archiver's loadConfig reads: `env` overridden by the parsed flags. */
export function archiverEnv(values: Record<string, string | boolean | (string | boolean)[] | undefined>, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  if (typeof values['redis-url'] === 'string') out.RUNNEL_REDIS_URL = values['redis-url'];
  for (const f of ARCHIVER_FLAGS) {
    const v = values[f.flag];
    if (v !== undefined) out[f.env] = String(v);
  }
  return out;
}

export function archiverFlagsUsage(): string {
  const lines = ARCHIVER_FLAGS.map((f) => {
    const left = f.kind === 'bool' ? `--${f.flag}` : `--${f.flag} VALUE`;
    return `  ${left.padEnd(40)}${f.help} [${f.env}]`;
  });
  lines.push(`  ${'-h, --help'.padEnd(40)}this help`);
  return `${lines.join('\n')}\n`;
}
