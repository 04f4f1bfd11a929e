// Produce-side schema validation, as Confluent Server's and Redpanda's
// `confluent.value.schema.validation` / `confluent.key.schema.validation`
// topic configs: every non-null value (and key) must be in the Confluent wire
// format, a magic byte 0 and a 4-byte big-endian schema id, and the id must be
// registered. The body after the id is not decoded (Confluent's default
// checks the id too, not the payload). This module's sink rides along the
// produce validation walk (log-validator.ts) and gives the records not in the
// wire format and the ids to look up; the produce handler asks the registry (an await before the partition's turn, so
// appends keep their order) and refuses the batch with INVALID_RECORD and
// KIP-467 record errors.
import type { RecordError } from '../../../common/record-batch/errors.js';
import type { RecordSink } from '../../../common/record-batch/records.js';

export interface SchemaRule {
  key: boolean;
  value: boolean;
}

/** Magic byte and schema id: the Confluent wire format's prefix. */
export const WIRE_PREFIX = 5;

export interface SchemaRefs {
  /** Records whose key or value is not in the wire format. */
  errors: RecordError[];
  /** Each schema id named, with the records (batch indexes) and part that name it, in order. */
  ids: Map<number, Array<{ batchIndex: number; part: 'key' | 'value' }>>;
}

/**
 * A record sink for the validation walk (validateBatch's `also`: the records
 * are decompressed once) that collects the schema refs of `rule`; `refs()`
 * gives them once the walk is done, numbered by `baseOffset`.
 */
export function schemaRefsSink(rule: SchemaRule): { sink: RecordSink; refs(baseOffset: number): SchemaRefs } {
  // by absolute offset during the walk (the batch header is not known to the caller yet)
  const errors: { offset: number; message: string }[] = [];
  const ids = new Map<number, Array<{ offset: number; part: 'key' | 'value' }>>();
  const check = (buf: Buffer, start: number, len: number, offset: number, part: 'key' | 'value'): boolean => {
    if (len < 0) return true; // null (a tombstone value, a keyless record): nothing to validate
    if (len < WIRE_PREFIX || buf[start] !== 0) {
      errors.push({ offset, message: `${part} is not in the Confluent wire format (magic byte 0 and a 4-byte schema id)` });
      return false;
    }
    const id = buf.readInt32BE(start + 1);
    let at = ids.get(id);
    if (!at) ids.set(id, (at = []));
    at.push({ offset, part });
    return true;
  };
  const sink: RecordSink = {
    record(offset, _ts, _tt, buf, keyStart, keyLen, valueStart, valueLen) {
      // One error per record, the key first (as Kafka's record rules).
      if (rule.key && !check(buf, keyStart, keyLen, offset, 'key')) return;
      if (rule.value) check(buf, valueStart, valueLen, offset, 'value');
    },
    header() {},
  };
  return {
    sink,
    refs: (base) => ({
      errors: errors.map((e) => ({ batchIndex: e.offset - base, message: e.message })),
      ids: new Map([...ids].map(([id, at]) => [id, at.map((x) => ({ batchIndex: x.offset - base, part: x.part }))])),
    }),
  };
}

/** The record errors for ids the registry does not have, merged with the wire-format ones in batch order (one per record). */
export function schemaErrors(refs: SchemaRefs, unknown: readonly number[]): RecordError[] {
  const out = new Map<number, RecordError>();
  for (const e of refs.errors) out.set(e.batchIndex, e);
  for (const id of unknown) {
    for (const { batchIndex, part } of refs.ids.get(id) ?? []) {
      if (!out.has(batchIndex)) out.set(batchIndex, { batchIndex, message: `${part} schema id ${id} is not registered in the Schema Registry` });
    }
  }
  return [...out.values()].sort((a, b) => a.batchIndex - b.batchIndex);
}
