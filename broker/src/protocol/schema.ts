// Message definitions as data. One definition per API covers all of its
// versions; the shape mirrors Apache Kafka's message JSON so that a test can
// check each definition against the official specs. The helpers keep each
// field's name, type and options in its TypeScript type, so request and
// response types are derived from the definitions themselves (see typed.ts).

export type PrimitiveType =
  | 'int8' | 'int16' | 'int32' | 'int64' | 'uint16' | 'float64'
  | 'bool' | 'string' | 'bytes' | 'uuid' | 'records';

export interface FieldDef {
  /** Kafka's PascalCase field name; decoded objects use the camelCase form. */
  readonly name: string;
  /** A primitive, `[]primitive`, `[]StructName` or a `StructName` (with `fields`). */
  readonly type: string;
  readonly versions: string;
  readonly nullableVersions?: string;
  readonly taggedVersions?: string;
  readonly tag?: number;
  /** Value used when the field is absent in a version (or omitted when encoding). */
  readonly default?: unknown;
  readonly fields?: readonly FieldDef[];
}

export interface MessageDef {
  readonly name: string;
  readonly validVersions: string;
  readonly flexibleVersions: string;
  readonly fields: readonly FieldDef[];
}

export interface ApiDef {
  readonly apiKey: number;
  readonly name: string;
  readonly request: MessageDef;
  readonly response: MessageDef;
}

export interface FieldOptions {
  readonly nullable?: string;
  readonly tagged?: string;
  readonly tag?: number;
  readonly default?: unknown;
}

/**
 * A FieldDef whose type records its name, type, versions, sub-fields and which
 * options it has (typed.ts reads them; the option values stay data). An
 * option the field lacks is typed undefined, as reading it gives.
 */
export interface Field<N extends string, T extends string, V extends string, O extends FieldOptions, Fs extends readonly FieldDef[] | undefined> extends FieldDef {
  readonly name: N;
  readonly type: T;
  readonly versions: V;
  readonly fields: Fs;
  readonly nullableVersions: O extends { nullable: string } ? string : undefined;
  readonly taggedVersions: O extends { tagged: string } ? string : undefined;
  readonly default: O extends { default: unknown } ? O['default'] : undefined;
}

/** The definition a field's options describe (the one place the option names map to Kafka's). */
function field(name: string, type: string, versions: string, opts: FieldOptions, fields: readonly FieldDef[] | undefined): FieldDef {
  const def: { -readonly [K in keyof FieldDef]: FieldDef[K] } = { name, type, versions };
  if (opts.nullable !== undefined) def.nullableVersions = opts.nullable;
  if (opts.tagged !== undefined) def.taggedVersions = opts.tagged;
  if (opts.tag !== undefined) def.tag = opts.tag;
  if ('default' in opts) def.default = opts.default;
  if (fields) def.fields = fields;
  return def;
}

/** Field shorthand: f('Acks', 'int16', '0+'). */
export function f<const N extends string, const T extends string, const V extends string, const O extends FieldOptions = {}>(
  name: N, type: T, versions: V, opts?: O,
): Field<N, T, V, O, undefined> {
  // The conditional parts of Field restate, at the type level, the branches field() takes at run time.
  return field(name, type, versions, opts ?? {}, undefined) as Field<N, T, V, O, undefined>;
}

/** Struct or struct-array field shorthand. */
export function s<const N extends string, const T extends string, const V extends string, const Fs extends readonly FieldDef[], const O extends FieldOptions = {}>(
  name: N, type: T, versions: V, fields: Fs, opts?: O,
): Field<N, T, V, O, Fs> {
  return field(name, type, versions, opts ?? {}, fields) as Field<N, T, V, O, Fs>;
}

export function message<const Fs extends readonly FieldDef[]>(name: string, validVersions: string, flexibleVersions: string, fields: Fs): MessageDef & { readonly fields: Fs } {
  return { name, validVersions, flexibleVersions, fields };
}
