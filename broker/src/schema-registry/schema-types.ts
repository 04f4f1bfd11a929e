// The schema types the registry accepts, each with its parser and its
// compatibility rule. A parsed schema knows whether it can read data
// written with another parsed schema of its type (schema resolution).
import { avroCanonical, avroIncompatibility, AvroSchemaError, parseAvro, type AvroType } from './avro.js';
import { invalidSchema } from './errors.js';
import { parseProtobuf, protobufIncompatibility, ProtobufSchemaError, type ParsedProtobuf } from './protobuf.js';
import { jsonIncompatibility, JsonSchemaError, parseJsonSchema, type ParsedJsonSchema } from './json-schema.js';
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

class ParsedJson implements ParsedSchema {
  readonly schemaType = 'JSON' as const;
  readonly canonical: string;
  constructor(readonly parsed: ParsedJsonSchema) { this.canonical = parsed.canonical; }
  cannotRead(writer: ParsedSchema): string | null {
    if (!(writer instanceof ParsedJson)) return `cannot read a ${writer.schemaType} schema as JSON`;
    return jsonIncompatibility(this.parsed.schema, writer.parsed.schema);
  }
}

class ParsedProto implements ParsedSchema {
  readonly schemaType = 'PROTOBUF' as const;
  readonly canonical: string;
  constructor(readonly parsed: ParsedProtobuf) { this.canonical = parsed.canonical; }
  cannotRead(writer: ParsedSchema): string | null {
    if (!(writer instanceof ParsedProto)) return `cannot read a ${writer.schemaType} schema as PROTOBUF`;
    return protobufIncompatibility(this.parsed, writer.parsed);
  }
}

/** A schema a parsed one references: the name it is referenced by, and its text. */
export interface ReferencedSchema {
  name: string;
  schema: string;
}

export function isSupportedType(t: unknown): t is SchemaType {
  return typeof t === 'string' && (SCHEMA_TYPES as readonly string[]).includes(t);
}

/**
 * Parses a schema of a supported type after the schemas it references
 * (dependencies first). A schema that does not parse is 42201.
 */
export function parseSchema(schemaType: SchemaType, text: string, refs: readonly ReferencedSchema[]): ParsedSchema {
  try {
    if (schemaType === 'AVRO') return new ParsedAvro(avroCanonical(text), parseAvro(text, refs.map((r) => r.schema)));
    if (schemaType === 'JSON') return new ParsedJson(parseJsonSchema(text, refs));
    if (schemaType === 'PROTOBUF') return new ParsedProto(parseProtobuf(text, refs));
  } catch (e) {
    if (e instanceof AvroSchemaError || e instanceof JsonSchemaError || e instanceof ProtobufSchemaError) throw invalidSchema(e.message);
    throw e;
  }
  throw invalidSchema(`Invalid schema type ${schemaType}`);
}
