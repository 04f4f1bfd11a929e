// Request and response types derived from the message definitions (schema.ts
// keeps each field's literal name, type and options in its type). The codec
// names a field by its Kafka name with the first letter lowercased (codec.ts
// camel()): 'ClientID' -> clientID, 'TopicData' -> topicData.
//
// Decoded: what decode() returns. Every field of the definition is present,
// whatever the version: decode fills fields absent from a version (or tagged
// and not sent) with their default. int64 is a JS number (reader.ts),
// bytes a Buffer, records a Buffer or null (its default), uuid a string.
//
// Encodable: what encode() accepts. encode() writes any field left undefined
// as its default; the type still asks for the fields every version carries
// with no default of their own (versions '0+', not tagged, no `default`), so
// a handler cannot leave one out by mistake, and makes the others optional.
// int64 may be a bigint, records a list of stored batches written back to back.
import type { ApiDef, FieldDef, MessageDef, PrimitiveType } from './schema.js';

type Numeric = 'int8' | 'int16' | 'int32' | 'uint16' | 'float64';

type DecodedPrimitive<T extends string> =
  T extends Numeric | 'int64' ? number
  : T extends 'bool' ? boolean
  : T extends 'string' | 'uuid' ? string
  : T extends 'bytes' ? Buffer
  : T extends 'records' ? Buffer | null
  : never;

type EncodablePrimitive<T extends string> =
  T extends Numeric ? number
  : T extends 'int64' ? number | bigint
  : T extends 'bool' ? boolean
  : T extends 'string' ? string
  : T extends 'uuid' ? string | null
  : T extends 'bytes' ? Uint8Array
  : T extends 'records' ? Uint8Array | readonly Buffer[] | null
  : never;

type Nullable<F extends FieldDef> = F['nullableVersions'] extends string ? null : never;

type DecodedElement<T extends string, Fs> =
  T extends PrimitiveType ? DecodedPrimitive<T> : Fs extends readonly FieldDef[] ? DecodedFields<Fs> : never;

type EncodableElement<T extends string, Fs> =
  T extends PrimitiveType ? EncodablePrimitive<T> : Fs extends readonly FieldDef[] ? EncodableFields<Fs> : never;

type DecodedValue<F extends FieldDef> =
  | (F['type'] extends `[]${infer E}` ? Array<DecodedElement<E, F['fields']>> : DecodedElement<F['type'], F['fields']>)
  | Nullable<F>;

type EncodableValue<F extends FieldDef> =
  | (F['type'] extends `[]${infer E}` ? ReadonlyArray<EncodableElement<E, F['fields']>> : EncodableElement<F['type'], F['fields']>)
  | Nullable<F>;

/** Whether encode() needs the field: every version has it and nothing else supplies it. */
type Needed<F extends FieldDef> =
  F['versions'] extends '0+'
    ? F['taggedVersions'] extends string ? false : F extends { readonly default: undefined } ? true : false
    : false;

export type DecodedFields<Fs extends readonly FieldDef[]> = {
  [F in Fs[number] as Uncapitalize<F['name']>]: DecodedValue<F>;
};

export type EncodableFields<Fs extends readonly FieldDef[]> = {
  [F in Fs[number] as Needed<F> extends true ? Uncapitalize<F['name']> : never]: EncodableValue<F>;
} & {
  [F in Fs[number] as Needed<F> extends true ? never : Uncapitalize<F['name']>]?: EncodableValue<F>;
};

/** A definition whose field names are not known to the type system (the generic MessageDef). */
type Untyped<M extends MessageDef> = string extends M['fields'][number]['name'] ? true : false;

/** What decode(msg) returns for this definition. */
export type Decoded<M extends MessageDef> = Untyped<M> extends true ? Record<string, unknown> : DecodedFields<M['fields']>;

/** What encode(msg) accepts for this definition. */
export type Encodable<M extends MessageDef> = Untyped<M> extends true ? Record<string, unknown> : EncodableFields<M['fields']>;

/** The request a handler of this API receives (decoded). */
export type RequestOf<A extends ApiDef> = Decoded<A['request']>;

/** The response a handler of this API returns (encoded by the dispatcher). */
export type ResponseOf<A extends ApiDef> = Encodable<A['response']>;

/** The element type of a list field, e.g. Element<ResponseOf<typeof Fetch>['responses']> (one topic's answer). */
export type Element<L> = NonNullable<L> extends ReadonlyArray<infer E> ? E : never;
