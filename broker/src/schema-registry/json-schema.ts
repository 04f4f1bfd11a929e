// JSON Schema for the registry: parsing and validation with Ajv (the schema
// must compile: known draft, valid against its meta-schema, every $ref
// resolvable through the references), and a compatibility check that covers
// Confluent's main JSON Schema rules (docs/schema-registry.md lists them).
// A reader schema can read what a writer schema allows when every document
// valid under the writer is valid under the reader.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
/** The part of Ajv's API used here (its classes are loaded per draft with require: ajv is CommonJS). */
interface AjvCore {
  compile(schema: unknown): unknown;
  addSchema(schema: unknown, key: string): unknown;
  getSchema(key: string): unknown;
  addMetaSchema(schema: object): unknown;
}
type AjvClass = new (opts: object) => AjvCore;
const Ajv07 = (require('ajv') as { default: AjvClass }).default;
const Ajv2019 = (require('ajv/dist/2019') as { default: AjvClass }).default;
const Ajv2020 = (require('ajv/dist/2020') as { default: AjvClass }).default;
const DRAFT_06 = require('ajv/dist/refs/json-schema-draft-06.json') as object;

export class JsonSchemaError extends Error {}

type Json = boolean | Record<string, unknown>;

function json(text: string): Json {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new JsonSchemaError(`Invalid schema ${text}, details: not JSON (${(e as Error).message})`);
  }
  if (typeof v !== 'boolean' && (typeof v !== 'object' || v === null || Array.isArray(v))) throw new JsonSchemaError(`Invalid schema ${text}, details: a JSON Schema is an object or a boolean`);
  return v as Json;
}

function ajvFor(s: Json): AjvCore {
  const draft = typeof s === 'object' && typeof s.$schema === 'string' ? s.$schema : '';
  const opts = { strict: false, allErrors: false, validateFormats: false };
  if (draft.includes('2020-12')) return new Ajv2020(opts);
  if (draft.includes('2019-09')) return new Ajv2019(opts);
  if (draft.includes('draft-04')) throw new JsonSchemaError('Invalid schema: JSON Schema draft-04 is not supported (drafts 6, 7, 2019-09 and 2020-12 are)');
  const ajv = new Ajv07(opts);
  if (draft.includes('draft-06')) ajv.addMetaSchema(DRAFT_06);
  return ajv;
}

export interface ParsedJsonSchema {
  /** The schema's JSON without insignificant whitespace. */
  canonical: string;
  schema: Json;
}

/**
 * Parses a JSON Schema; `refs` are the schemas it references, by the name a
 * `$ref` uses for each (Confluent's reference name).
 */
export function parseJsonSchema(text: string, refs: ReadonlyArray<{ name: string; schema: string }> = []): ParsedJsonSchema {
  const schema = json(text);
  const ajv = ajvFor(schema);
  try {
    for (const r of refs) {
      const s = json(r.schema);
      if (!ajv.getSchema(r.name)) ajv.addSchema(typeof s === 'object' ? { ...s, $id: undefined } : s, r.name);
    }
    ajv.compile(schema);
  } catch (e) {
    if (e instanceof JsonSchemaError) throw e;
    throw new JsonSchemaError(`Invalid schema ${text}, details: ${(e as Error).message}`);
  }
  return { canonical: JSON.stringify(schema), schema };
}

const TYPES = ['null', 'boolean', 'object', 'array', 'number', 'integer', 'string'];

function typesOf(s: Record<string, unknown>): Set<string> | null {
  if (s.type === undefined) return null; // any type
  const t = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
  return new Set(t.filter((x) => TYPES.includes(x)));
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
const isClosed = (s: Record<string, unknown>): boolean => s.additionalProperties === false;
const props = (s: Record<string, unknown>): Record<string, Json> => (s.properties ?? {}) as Record<string, Json>;
const required = (s: Record<string, unknown>): Set<string> => new Set((s.required ?? []) as string[]);

/**
 * Why `reader` may refuse a document `writer` accepts (the first reason
 * found), or null. Checked: boolean schemas; types (a reader type set must
 * contain the writer's; integer is a number); enums and const; string,
 * number and array bounds and string patterns; object properties (recursively),
 * required properties, and the content model: a property the writer lacks
 * is fine in a reader only if the writer was closed (additionalProperties
 * false) or the property accepts what the writer's additionalProperties
 * allows; a property the reader lacks needs the reader open. Array items
 * recursively. $ref, allOf, anyOf, oneOf, not, if/then/else,
 * patternProperties and dependencies must be unchanged.
 */
export function jsonIncompatibility(reader: Json, writer: Json, path = '#'): string | null {
  if (reader === true || (typeof reader === 'object' && Object.keys(reader).length === 0)) return null;
  if (writer === false) return null;
  if (reader === false) return `${path}: the reader accepts nothing`;
  const r = reader;
  const w = writer === true ? {} : writer;
  for (const k of ['$ref', 'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'patternProperties', 'dependencies', 'dependentRequired', 'dependentSchemas', 'pattern', 'format', 'multipleOf', 'const']) {
    if (k in r && !same(r[k], w[k])) return `${path}: '${k}' changed`;
  }
  const rt = typesOf(r);
  const wt = typesOf(w);
  if (rt) {
    if (!wt) return `${path}: the reader narrows the type to ${[...rt].join(', ')}`;
    for (const t of wt) if (!rt.has(t) && !(t === 'integer' && rt.has('number'))) return `${path}: type ${t} no longer allowed`;
  }
  if (Array.isArray(r.enum)) {
    if (!Array.isArray(w.enum)) return `${path}: the reader adds an enum`;
    for (const v of w.enum as unknown[]) if (!(r.enum as unknown[]).some((x) => same(x, v))) return `${path}: enum value ${JSON.stringify(v)} removed`;
  }
  for (const [k, looser] of [['maxLength', 'lower'], ['maxItems', 'lower'], ['maxProperties', 'lower'], ['maximum', 'lower'], ['exclusiveMaximum', 'lower'],
    ['minLength', 'higher'], ['minItems', 'higher'], ['minProperties', 'higher'], ['minimum', 'higher'], ['exclusiveMinimum', 'higher']] as const) {
    const rv = r[k];
    if (typeof rv !== 'number') continue;
    const wv = w[k];
    if (typeof wv !== 'number' || (looser === 'lower' ? rv < wv : rv > wv)) return `${path}: ${k} ${wv === undefined ? 'added' : 'narrowed'}`;
  }
  if (r.uniqueItems === true && w.uniqueItems !== true) return `${path}: uniqueItems added`;
  // arrays
  if ('items' in r) {
    if (Array.isArray(r.items) || Array.isArray(w.items)) {
      if (!same(r.items, w.items)) return `${path}/items: tuple items changed`;
    } else {
      const why = jsonIncompatibility(r.items as Json, (w.items ?? true) as Json, `${path}/items`);
      if (why) return why;
    }
  }
  // objects
  const rp = props(r);
  const wp = props(w);
  const wRequired = required(w);
  for (const name of required(r)) if (!wRequired.has(name)) return `${path}: property '${name}' became required`;
  for (const [name, rs] of Object.entries(rp)) {
    const where = `${path}/properties/${name}`;
    if (name in wp) {
      const why = jsonIncompatibility(rs, wp[name]!, where);
      if (why) return why;
    } else if (!isClosed(w)) {
      const why = jsonIncompatibility(rs, (w.additionalProperties ?? true) as Json, where);
      if (why) return `${where}: added to an open content model (${why})`;
    }
  }
  for (const [name, ws] of Object.entries(wp)) {
    if (name in rp) continue;
    const where = `${path}/properties/${name}`;
    if (isClosed(r)) return `${where}: removed from a closed content model`;
    if (r.additionalProperties !== undefined && r.additionalProperties !== true) {
      const why = jsonIncompatibility(r.additionalProperties as Json, ws, where);
      if (why) return why;
    }
  }
  if (r.additionalProperties !== undefined && r.additionalProperties !== true && !isClosed(w)) {
    const why = jsonIncompatibility(r.additionalProperties as Json, (w.additionalProperties ?? true) as Json, `${path}/additionalProperties`);
    if (why) return `${path}: additionalProperties narrowed (${why})`;
  }
  return null;
}
