// The port produce-side schema validation reads (topic configs
// confluent.value.schema.validation / confluent.key.schema.validation):
// whether the Schema Registry has a schema under an id. The implementation
// caches: an id, once registered, keeps its schema (schema-registry/schema-ids.ts).
export interface SchemaIds {
  /** Those of `ids` that no schema has now. */
  unknown(ids: readonly number[]): Promise<number[]>;
}
