// `runnel schema`: the Schema Registry over Confluent's REST API (Runnel's
// built-in registry on schema.registry.listeners, or any Confluent-compatible
// one). Subjects are the resource name: `runnel schema register orders-value
// --file order.avsc`. Confluent's error bodies ({"error_code", "message"})
// become one line and exit code 1; an incompatible schema in `check` too.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CliUsageError } from '../kafka/errors.js';
import { json, out, table } from './common.js';
import { RegistryClient, registryClientFrom } from './registry-client.js';

export const DEFAULT_REGISTRY_URL = 'http://127.0.0.1:8081';

export const SCHEMA_USAGE = `usage: runnel schema list [--deleted] [--json]
       runnel schema get SUBJECT [--version V] [--json]
       runnel schema register SUBJECT [--file F] [--type AVRO|JSON|PROTOBUF]
       runnel schema check SUBJECT [--file F] [--type T] [--version V]
       runnel schema delete SUBJECT [--version V] [--permanent]
       runnel schema config [SUBJECT] [--compatibility LEVEL] [--json]

The Schema Registry over Confluent's REST API. A schema is read from --file, or from stdin without
it. register prints the global id and the subject's version; check exits 1 with the reasons when
the schema is incompatible with --version (default: latest) under the subject's compatibility
level; delete is soft unless --permanent (which needs a soft delete first, as Confluent's does);
config shows or sets the compatibility level (BACKWARD, BACKWARD_TRANSITIVE, FORWARD,
FORWARD_TRANSITIVE, FULL, FULL_TRANSITIVE, NONE) of a subject or, without one, the global default.

options:
  --registry-url URL        the registry (default ${DEFAULT_REGISTRY_URL}; env RUNNEL_SCHEMA_REGISTRY_URL)
  --basic-auth USER:PW      HTTP basic credentials (env RUNNEL_SCHEMA_REGISTRY_BASIC_AUTH)
  --ca FILE                 PEM CA certificates that sign an https registry's certificate
  --file F                  the schema text (default: stdin)
  --type T                  AVRO (default), JSON or PROTOBUF
  --version V               a version number or latest
  --deleted                 list: soft-deleted subjects too
  --permanent               delete: a hard delete
  --compatibility LEVEL     config: the level to set
  --json                    JSON instead of text
  -h, --help                this help
`;

const OPTIONS = {
  'registry-url': { type: 'string' },
  'basic-auth': { type: 'string' },
  ca: { type: 'string' },
  file: { type: 'string' },
  type: { type: 'string' },
  version: { type: 'string' },
  deleted: { type: 'boolean' },
  permanent: { type: 'boolean' },
  compatibility: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const SUBCOMMANDS = ['list', 'get', 'register', 'check', 'delete', 'config'] as const;
type Sub = typeof SUBCOMMANDS[number];
export const SCHEMA_TYPES = ['AVRO', 'JSON', 'PROTOBUF'] as const;
export const LEVELS = ['BACKWARD', 'BACKWARD_TRANSITIVE', 'FORWARD', 'FORWARD_TRANSITIVE', 'FULL', 'FULL_TRANSITIVE', 'NONE'] as const;

/** Flags each subcommand takes besides the connection ones. */
const ALLOWED: Record<Sub, readonly string[]> = {
  list: ['deleted', 'json'],
  get: ['version', 'json'],
  register: ['file', 'type', 'json'],
  check: ['file', 'type', 'version', 'json'],
  delete: ['version', 'permanent', 'json'],
  config: ['compatibility', 'json'],
};

export interface SchemaArgs {
  sub: Sub;
  subject: string | null;
  values: Record<string, string | boolean | undefined>;
}

export function parseSchemaArgs(args: string[]): SchemaArgs {
  let r;
  try {
    r = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: true });
  } catch (e) {
    if ((e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) throw new CliUsageError((e as Error).message);
    throw e;
  }
  const values = r.values as Record<string, string | boolean | undefined>;
  const [sub, subject, extra] = r.positionals;
  if (sub === undefined) throw new CliUsageError(`schema: which one? ${SUBCOMMANDS.join(' | ')}`);
  if (!(SUBCOMMANDS as readonly string[]).includes(sub)) throw new CliUsageError(`schema ${sub}: unknown; expected ${SUBCOMMANDS.join(' | ')}`);
  const s = sub as Sub;
  if (extra !== undefined) throw new CliUsageError(`unexpected argument ${extra}`);
  if (s === 'list' && subject !== undefined) throw new CliUsageError(`unexpected argument ${subject}`);
  if (s !== 'list' && s !== 'config' && (subject === undefined || subject === '')) throw new CliUsageError('missing subject');
  for (const k of Object.keys(values)) {
    if (['registry-url', 'basic-auth', 'ca', 'help'].includes(k)) continue;
    if (!ALLOWED[s].includes(k)) throw new CliUsageError(`--${k} does not apply to schema ${s}`);
  }
  const type = values.type;
  if (typeof type === 'string' && !(SCHEMA_TYPES as readonly string[]).includes(type.toUpperCase())) throw new CliUsageError(`--type ${type}: expected AVRO, JSON or PROTOBUF`);
  const level = values.compatibility;
  if (typeof level === 'string' && !(LEVELS as readonly string[]).includes(level.toUpperCase())) throw new CliUsageError(`--compatibility ${level}: expected ${LEVELS.join(', ')}`);
  const version = values.version;
  if (typeof version === 'string' && version !== 'latest' && !/^[1-9]\d{0,9}$/.test(version)) throw new CliUsageError(`--version ${version}: expected a version number or latest`);
  return { sub: s, subject: subject ?? null, values };
}

async function schemaText(file: string | undefined): Promise<string> {
  if (file !== undefined) return readFileSync(file, 'utf8');
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') throw new CliUsageError('no schema: give --file or the schema on stdin');
  return text;
}

/** The registration body: schemaType only when not AVRO, as Confluent's clients send it. */
function schemaBody(text: string, type: string | undefined): Record<string, unknown> {
  const t = (type ?? 'AVRO').toUpperCase();
  return t === 'AVRO' ? { schema: text } : { schemaType: t, schema: text };
}

const enc = encodeURIComponent;

interface VersionBody { subject: string; version: number; id: number; schemaType?: string; schema: string }

export async function schemaCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const a = parseSchemaArgs(args);
  const v = a.values;
  const client: RegistryClient = registryClientFrom(v, env, DEFAULT_REGISTRY_URL);
  const subject = a.subject ?? '';
  switch (a.sub) {
    case 'list': {
      const subjects = await client.get<string[]>(`/subjects${v.deleted ? '?deleted=true' : ''}`);
      const rows: VersionBody[] = [];
      for (const s of subjects.sort()) {
        rows.push(await client.get<VersionBody>(`/subjects/${enc(s)}/versions/latest${v.deleted ? '?deleted=true' : ''}`));
      }
      if (v.json) return out(json(rows.map((r) => ({ subject: r.subject, version: r.version, id: r.id, schemaType: r.schemaType ?? 'AVRO' }))));
      return out(table(['subject', 'version', 'id', 'type'], rows.map((r) => [r.subject, String(r.version), String(r.id), r.schemaType ?? 'AVRO']), new Set([1, 2])));
    }
    case 'get': {
      const r = await client.get<VersionBody>(`/subjects/${enc(subject)}/versions/${enc(String(v.version ?? 'latest'))}`);
      if (v.json) return out(json({ ...r, schemaType: r.schemaType ?? 'AVRO' }));
      return out(`subject ${r.subject}  version ${r.version}  id ${r.id}  type ${r.schemaType ?? 'AVRO'}\n${pretty(r.schema, r.schemaType)}\n`);
    }
    case 'register': {
      const body = schemaBody(await schemaText(v.file as string | undefined), v.type as string | undefined);
      const { id } = await client.send<{ id: number }>('POST', `/subjects/${enc(subject)}/versions`, body);
      const found = await client.send<VersionBody>('POST', `/subjects/${enc(subject)}`, body);
      if (v.json) return out(json({ subject, version: found.version, id }));
      return out(`Registered schema id ${id} as version ${found.version} of subject ${subject}.\n`);
    }
    case 'check': {
      const body = schemaBody(await schemaText(v.file as string | undefined), v.type as string | undefined);
      const r = await client.send<{ is_compatible: boolean; messages?: string[] }>('POST', `/compatibility/subjects/${enc(subject)}/versions/${enc(String(v.version ?? 'latest'))}?verbose=true`, body);
      if (v.json) await out(json(r));
      else await out(r.is_compatible ? `Compatible with subject ${subject}.\n` : `Incompatible with subject ${subject}:\n${(r.messages ?? []).map((m) => `  ${m}`).join('\n')}\n`);
      // Exit 1, as for any refusal, with the reasons above on stdout.
      if (!r.is_compatible) throw new Error(`the schema is incompatible with subject ${subject} (${String(v.version ?? 'latest')})`);
      return;
    }
    case 'delete': {
      const path = v.version !== undefined ? `/subjects/${enc(subject)}/versions/${enc(String(v.version))}` : `/subjects/${enc(subject)}`;
      const r = await client.send<number | number[]>('DELETE', `${path}${v.permanent ? '?permanent=true' : ''}`);
      const versions = Array.isArray(r) ? r : [r];
      if (v.json) return out(json({ subject, versions, permanent: Boolean(v.permanent) }));
      return out(`Deleted${v.permanent ? ' permanently' : ''} version${versions.length === 1 ? '' : 's'} ${versions.join(', ')} of subject ${subject}.\n`);
    }
    case 'config': {
      const path = a.subject ? `/config/${enc(subject)}` : '/config';
      const level = v.compatibility;
      if (typeof level === 'string') {
        const r = await client.send<{ compatibility: string }>('PUT', path, { compatibility: level.toUpperCase() });
        if (v.json) return out(json(r));
        return out(`Compatibility of ${a.subject ? `subject ${subject}` : 'the registry'} set to ${r.compatibility}.\n`);
      }
      const r = await client.get<{ compatibilityLevel?: string; compatibility?: string }>(a.subject ? `${path}?defaultToGlobal=true` : path);
      const got = r.compatibilityLevel ?? r.compatibility ?? '?';
      if (v.json) return out(json({ subject: a.subject, compatibility: got }));
      return out(`${got}\n`);
    }
  }
}

/** AVRO and JSON schemas indented; PROTOBUF as it is. */
function pretty(schema: string, type: string | undefined): string {
  if (type === 'PROTOBUF') return schema;
  try {
    return JSON.stringify(JSON.parse(schema), null, 2);
  } catch {
    return schema;
  }
}
