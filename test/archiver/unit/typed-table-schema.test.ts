// A typed table's Delta schema (archiver/src/schemas/table-schema.ts): new typed
// columns join the table's schemaString in the commit of their first file; a
// type Delta cannot change is a conflict the commit refuses (commit.ts re-encodes).
import { describe, expect, it } from 'vitest';
import { mergeTypedColumns, tableTypedColumns, TypedColumnConflict } from '../../../archiver/src/schemas/table-schema.js';

describe('table schema evolution (schemas/table-schema.ts)', () => {
  const base = JSON.stringify({ type: 'struct', fields: [{ name: 'offset', type: 'long', nullable: false, metadata: {} }, { name: 'date', type: 'date', nullable: true, metadata: {} }] });
  const f = (name: string, type: string) => ({ name, type, nullable: true, metadata: {} });

  it('new typed columns are added before the partition column; nothing new: no metaData', () => {
    const merged = mergeTypedColumns(base, [[f('price', 'double'), f('decode_error', 'string')], undefined, [f('price', 'double'), f('note', 'string')]]);
    expect((JSON.parse(merged!) as { fields: { name: string }[] }).fields.map((x) => x.name)).toEqual(['offset', 'price', 'decode_error', 'note', 'date']);
    expect(mergeTypedColumns(merged!, [[f('note', 'string')]])).toBeNull();
    expect(tableTypedColumns(merged!)).toEqual({ price: '"double"', decode_error: '"string"', note: '"string"' });
  });

  it('a column with another type in a new file is a conflict (the flush is re-encoded against the table)', () => {
    const merged = mergeTypedColumns(base, [[f('price', 'double')]])!;
    expect(() => mergeTypedColumns(merged, [[f('price', 'string')]])).toThrow(TypedColumnConflict);
    // two files of one flush that disagree on a new column
    expect(() => mergeTypedColumns(base, [[f('x', 'long')], [f('x', 'string')]])).toThrow('typed column x is "long" in the table and "string" in a new file');
  });
});
