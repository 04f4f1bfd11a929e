// The Delta table schema of a topic with typed columns: the raw columns
// (parquet/file-stats.ts DELTA_SCHEMA) plus every typed column any committed file
// has. A file with a column the table lacks adds it (Delta schema evolution: a
// new metaData action in the same commit); older files read null for it.
import { DELTA_SCHEMA } from '../parquet/file-stats.js';
import type { DeltaField } from './avro-arrow.js';

const RAW = new Set(DELTA_SCHEMA.fields.map((f) => f.name));

/** A typed column the table has with another type: the flush is re-encoded against the table's schema (commit.ts). */
export class TypedColumnConflict extends Error {}

/** The table's typed columns: name -> JSON of its Delta type (what a typed encode job must not contradict). */
export function tableTypedColumns(schemaString: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!schemaString) return out;
  for (const f of (JSON.parse(schemaString) as { fields: DeltaField[] }).fields) if (!RAW.has(f.name)) out[f.name] = JSON.stringify(f.type);
  return out;
}

/**
 * The table schema with the typed columns of these files added (before the
 * partition column `date`), or null when it already has them all. Throws
 * TypedColumnConflict when a column exists with another type.
 */
export function mergeTypedColumns(schemaString: string, files: (DeltaField[] | undefined)[]): string | null {
  const schema = JSON.parse(schemaString) as { type: string; fields: DeltaField[] };
  const have = new Map(schema.fields.map((f) => [f.name, JSON.stringify(f.type)]));
  const added: DeltaField[] = [];
  for (const fields of files) {
    for (const f of fields ?? []) {
      const json = JSON.stringify(f.type);
      const cur = have.get(f.name);
      if (cur === undefined) {
        have.set(f.name, json);
        added.push({ ...f, nullable: true });
      } else if (cur !== json) {
        throw new TypedColumnConflict(`typed column ${f.name} is ${cur} in the table and ${json} in a new file`);
      }
    }
  }
  if (!added.length) return null;
  const at = schema.fields.findIndex((f) => f.name === 'date');
  const fields = at < 0 ? [...schema.fields, ...added] : [...schema.fields.slice(0, at), ...added, ...schema.fields.slice(at)];
  return JSON.stringify({ ...schema, fields });
}
