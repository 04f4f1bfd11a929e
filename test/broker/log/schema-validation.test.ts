import { describe, expect, it } from 'vitest';
import { encodeBatch } from '../../../common/record-batch/encode.js';
import { validateRecords } from '../../../broker/src/log/log-validator.js';
import { schemaErrors, type SchemaRefs } from '../../../broker/src/log/schema-validation.js';

/** Confluent's wire format: magic 0, the id big-endian, then the body. */
const wire = (id: number, body = 'x'): Buffer => Buffer.concat([Buffer.from([0]), Buffer.from([id >>> 24, (id >>> 16) & 255, (id >>> 8) & 255, id & 255]), Buffer.from(body)]);

/** The refs the produce validation walk collects (validateRecords with a schema rule), numbered from the batch's first record. */
function refs(records: Array<{ key?: Buffer | null; value?: Buffer | null }>, rule = { key: false, value: true }, compressionType = 'producer'): SchemaRefs {
  const batch = encodeBatch(records, { baseOffset: 100 });
  const v = validateRecords(batch, { partitionName: 't-0', compacted: false, createTimeBounds: null, compressionType, maxMessageBytes: 1048588, schemaRule: rule });
  if (!v.ok) throw new Error(v.message);
  return v.batch.schemaRefs!;
}

describe('produce-side schema validation (confluent.*.schema.validation)', () => {
  it('collects each id with the records naming it, and passes null values', () => {
    const r = refs([{ value: wire(7) }, { value: null }, { value: wire(9) }, { value: wire(7, '') }]);
    expect(r.errors).toEqual([]);
    expect([...r.ids]).toEqual([[7, [{ batchIndex: 0, part: 'value' }, { batchIndex: 3, part: 'value' }]], [9, [{ batchIndex: 2, part: 'value' }]]]);
  });

  it('names records not in the wire format: a wrong magic byte, fewer than five bytes, plain text', () => {
    const r = refs([{ value: Buffer.from([1, 0, 0, 0, 7]) }, { value: Buffer.from([0, 0, 0, 7]) }, { value: Buffer.from('hello world') }, { value: wire(1) }]);
    expect(r.errors.map((e) => e.batchIndex)).toEqual([0, 1, 2]);
    expect(r.errors[0]!.message).toBe('value is not in the Confluent wire format (magic byte 0 and a 4-byte schema id)');
    expect([...r.ids.keys()]).toEqual([1]);
  });

  it('checks keys only when asked, the key first with one error per record', () => {
    const records = [{ key: Buffer.from('plain'), value: Buffer.from('plain') }, { key: wire(3), value: wire(4) }, { key: null, value: wire(4) }];
    expect(refs(records, { key: false, value: true }).errors.map((e) => e.batchIndex)).toEqual([0]);
    const both = refs(records, { key: true, value: true });
    expect(both.errors).toEqual([{ batchIndex: 0, message: 'key is not in the Confluent wire format (magic byte 0 and a 4-byte schema id)' }]);
    expect([...both.ids.keys()].sort()).toEqual([3, 4]);
    expect(refs(records, { key: true, value: false }).ids.get(4)).toBeUndefined();
  });

  it('are collected from the producer\'s records when the topic recompresses them, and not at all without a rule', () => {
    expect([...refs([{ value: wire(7) }, { value: Buffer.from('no') }], { key: false, value: true }, 'zstd').ids.keys()]).toEqual([7]);
    const batch = encodeBatch([{ value: wire(7) }], { baseOffset: 0 });
    const v = validateRecords(batch, { partitionName: 't-0', compacted: false, createTimeBounds: null, compressionType: 'producer', maxMessageBytes: 1048588, schemaRule: null });
    expect(v.ok && v.batch.schemaRefs).toBeUndefined();
  });

  it('merges the unknown ids into record errors in batch order, one per record', () => {
    const r = refs([{ value: wire(5) }, { value: Buffer.from('no') }, { value: wire(6) }, { value: wire(5) }]);
    expect(schemaErrors(r, [5])).toEqual([
      { batchIndex: 0, message: 'value schema id 5 is not registered in the Schema Registry' },
      { batchIndex: 1, message: 'value is not in the Confluent wire format (magic byte 0 and a 4-byte schema id)' },
      { batchIndex: 3, message: 'value schema id 5 is not registered in the Schema Registry' },
    ]);
    expect(schemaErrors(r, [])).toHaveLength(1);
  });
});
