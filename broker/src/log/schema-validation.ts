// Produce-side schema validation, as Confluent Server's and Redpanda's
// `confluent.value.schema.validation` / `confluent.key.schema.validation`
// topic configs: every non-null value (and key) must be in the Confluent wire
// format, a magic byte 0 and a 4-byte big-endian schema id, and the id must be
// registered. The body after the id is not decoded (Confluent's default
// checks the id too, not the payload). This module walks a validated batch
// and returns the records not in the wire format and the ids to look up; the
// produce handler asks the registry (an await before the partition's turn, so
// appends keep their order) and refuses the batch with INVALID_RECORD and
// KIP-467 record errors.
import { decompress } from '../../../common/record-batch/codecs.js';
import type { RecordError } from '../../../common/record-batch/errors.js';
import type { BatchHeader } from '../../../common/record-batch/header.js';
import { BATCH_HEADER_SIZE } from '../../../common/record-batch/layout.js';
import { walkRecords } from '../../../common/record-batch/records.js';

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

/** Walks `batch` (a batch that passed validateRecords, so its framing is sound). */
export function schemaRefs(batch: Buffer, h: BatchHeader, rule: SchemaRule): SchemaRefs {
  const errors: RecordError[] = [];
  const ids = new Map<number, Array<{ batchIndex: number; part: 'key' | 'value' }>>();
  const data = decompress(h.codec, batch.subarray(BATCH_HEADER_SIZE));
  const check = (buf: Buffer, start: number, len: number, batchIndex: number, part: 'key' | 'value'): boolean => {
    if (len < 0) return true; // null (a tombstone value, a keyless record): nothing to validate
    if (len < WIRE_PREFIX || buf[start] !== 0) {
      errors.push({ batchIndex, message: `${part} is not in the Confluent wire format (magic byte 0 and a 4-byte schema id)` });
      return false;
    }
    const id = buf.readInt32BE(start + 1);
    let at = ids.get(id);
    if (!at) ids.set(id, (at = []));
    at.push({ batchIndex, part });
    return true;
  };
  walkRecords(data, 0, data.length, h, 'contiguous', {
    record(offset, _ts, _tt, buf, keyStart, keyLen, valueStart, valueLen) {
      const batchIndex = offset - h.baseOffset;
      // One error per record, the key first (as Kafka's record rules).
      if (rule.key && !check(buf, keyStart, keyLen, batchIndex, 'key')) return;
      if (rule.value) check(buf, valueStart, valueLen, batchIndex, 'value');
    },
    header() {},
  });
  return { errors, ids };
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
