// Message definitions as data. One definition per API covers all of its
// versions; the shape mirrors Apache Kafka's message JSON so that a test can
// check each definition against the official specs.

export type PrimitiveType =
  | 'int8' | 'int16' | 'int32' | 'int64' | 'uint16' | 'float64'
  | 'bool' | 'string' | 'bytes' | 'uuid' | 'records';

export interface FieldDef {
  /** Kafka's PascalCase field name; decoded objects use the camelCase form. */
  name: string;
  /** A primitive, `[]primitive`, `[]StructName` or a `StructName` (with `fields`). */
  type: string;
  versions: string;
  nullableVersions?: string;
  taggedVersions?: string;
  tag?: number;
  /** Value used when the field is absent in a version (or omitted when encoding). */
  default?: unknown;
  fields?: FieldDef[];
}

export interface MessageDef {
  name: string;
  validVersions: string;
  flexibleVersions: string;
  fields: FieldDef[];
}

export interface ApiDef {
  apiKey: number;
  name: string;
  request: MessageDef;
  response: MessageDef;
}

export interface FieldOptions {
  nullable?: string;
  tagged?: string;
  tag?: number;
  default?: unknown;
}

/** Field shorthand: f('Acks', 'int16', '0+'). */
export function f(name: string, type: string, versions: string, opts: FieldOptions = {}, fields?: FieldDef[]): FieldDef {
  const def: FieldDef = { name, type, versions };
  if (opts.nullable !== undefined) def.nullableVersions = opts.nullable;
  if (opts.tagged !== undefined) def.taggedVersions = opts.tagged;
  if (opts.tag !== undefined) def.tag = opts.tag;
  if ('default' in opts) def.default = opts.default;
  if (fields) def.fields = fields;
  return def;
}

/** Struct or struct-array field shorthand. */
export function s(name: string, type: string, versions: string, fields: FieldDef[], opts: FieldOptions = {}): FieldDef {
  return f(name, type, versions, opts, fields);
}

export function message(name: string, validVersions: string, flexibleVersions: string, fields: FieldDef[]): MessageDef {
  return { name, validVersions, flexibleVersions, fields };
}
