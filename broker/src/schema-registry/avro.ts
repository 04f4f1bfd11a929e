// Avro schemas for the registry, with the avsc library: parsing and validation
// (names, duplicate fields and symbols, defaults that match their type), the
// stored text, and compatibility as Avro's schema resolution defines it (a
// reader schema can read data written with a writer schema).
import avsc from 'avsc';

export type AvroType = avsc.Type;

/** A schema text that does not parse as Avro (reported as 42201). */
export class AvroSchemaError extends Error {}

function json(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new AvroSchemaError(`Invalid schema ${text}, details: not JSON (${(e as Error).message})`);
  }
}

/**
 * The text the registry stores and serves: the schema's JSON without
 * insignificant whitespace, attributes in the order given. Two texts that
 * differ only in layout are one schema (one id); any other difference (a
 * default, a doc, a logical type) is another schema, as for Confluent.
 */
export function avroCanonical(text: string): string {
  return JSON.stringify(json(text));
}

/**
 * Parses `text` after the schemas it references (`refs`: their texts, each
 * after the ones it references), whose named types it may use by full name.
 * Logical types are checked as their underlying type; names are checked
 * against Avro's rules, field defaults against their type.
 */
export function parseAvro(text: string, refs: readonly string[] = []): AvroType {
  const registry: Record<string, AvroType> = {};
  const parse = (t: string): AvroType => {
    try {
      return avsc.Type.forSchema(json(t) as avsc.Schema, { registry });
    } catch (e) {
      if (e instanceof AvroSchemaError) throw e;
      throw new AvroSchemaError(`Invalid schema ${t}, details: ${(e as Error).message}`);
    }
  };
  for (const r of refs) parse(r);
  return parse(text);
}

/**
 * Why `reader` cannot read data written with `writer`, or null when it can
 * (Avro schema resolution: fields the writer lacks need a default in the
 * reader, numeric promotions int->long->float->double, string<->bytes, enum
 * symbols the reader lacks need a reader default, every branch of a writer
 * union must resolve). Named types match by unqualified name or alias, as in
 * Avro's SchemaCompatibility.
 */
export function avroIncompatibility(reader: AvroType, writer: AvroType): string | null {
  try {
    reader.createResolver(writer, { ignoreNamespaces: true });
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}
