// The schema types the registry accepts, each with its parser and its
// compatibility rule. A parsed schema knows whether it can read data
// written with another parsed schema of its type (schema resolution).
import { avroCanonical, avroIncompatibility, AvroSchemaError, parseAvro, type AvroType } from './avro.js';
import { invalidSchema } from './errors.js';
import { SCHEMA_TYPES, type SchemaType } from './model.js';

export interface ParsedSchema {
  schemaType: SchemaType;
  /** The text the registry stores and serves for the schema. */
  canonical: string;
  /** Why this schema, as reader, cannot read data written with `writer`; null when it can. */
  cannotRead(writer: ParsedSchema): string | null;
}

class ParsedAvro implements ParsedSchema {
  readonly schemaType = 'AVRO' as const;
  constructor(readonly canonical: string, readonly type: AvroType) {}
  cannotRead(writer: ParsedSchema): string | null {
    if (!(writer instanceof ParsedAvro)) return `cannot read a ${writer.schemaType} schema as AVRO`;
    return avroIncompatibility(this.type, writer.type);
  }
}

export function isSupportedType(t: unknown): t is SchemaType {
  return typeof t === 'string' && (SCHEMA_TYPES as readonly string[]).includes(t);
}

/**
 * Parses a schema of a supported type after the texts of the schemas it
 * references (dependencies first). A schema that does not parse is 42201.
 */
export function parseSchema(schemaType: SchemaType, text: string, refs: readonly string[]): ParsedSchema {
  if (schemaType !== 'AVRO') throw invalidSchema(`Invalid schema type ${schemaType}`);
  try {
    return new ParsedAvro(avroCanonical(text), parseAvro(text, refs));
  } catch (e) {
    if (e instanceof AvroSchemaError) throw invalidSchema(e.message);
    throw e;
  }
}
