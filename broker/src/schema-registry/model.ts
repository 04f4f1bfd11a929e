// The data of the Schema Registry (Confluent's REST API model): schemas with
// global ids, subjects holding numbered versions of them, compatibility
// levels and modes, global or per subject.

/** The types served, in the order Confluent's GET /schemas/types lists them. */
export const SCHEMA_TYPES = ['JSON', 'PROTOBUF', 'AVRO'] as const;
export type SchemaType = 'AVRO' | 'JSON' | 'PROTOBUF';

/** Confluent's compatibility levels; BACKWARD is the default. */
export const COMPATIBILITY_LEVELS = ['BACKWARD', 'BACKWARD_TRANSITIVE', 'FORWARD', 'FORWARD_TRANSITIVE', 'FULL', 'FULL_TRANSITIVE', 'NONE'] as const;
export type Compatibility = (typeof COMPATIBILITY_LEVELS)[number];
export const DEFAULT_COMPATIBILITY: Compatibility = 'BACKWARD';

/** Confluent's modes; READWRITE is the default. */
export const MODES = ['READWRITE', 'READONLY', 'IMPORT'] as const;
export type Mode = (typeof MODES)[number];
export const DEFAULT_MODE: Mode = 'READWRITE';

export const isCompatibility = (s: unknown): s is Compatibility => typeof s === 'string' && (COMPATIBILITY_LEVELS as readonly string[]).includes(s);
export const isMode = (s: unknown): s is Mode => typeof s === 'string' && (MODES as readonly string[]).includes(s);

/** A schema that names a type defined by a version of another subject (Confluent's "references"). */
export interface Reference {
  name: string;
  subject: string;
  version: number;
}

/** One schema as stored under its global id: its type, text (compact JSON for Avro) and references. */
export interface SchemaRecord {
  schemaType: SchemaType;
  schema: string;
  references: Reference[];
}

/** One version of a subject: its number, the id of its schema, and whether it is soft-deleted. */
export interface VersionEntry {
  version: number;
  id: number;
  deleted: boolean;
}

/** Highest version number Confluent accepts (2^31-1). */
export const MAX_VERSION = 2147483647;
