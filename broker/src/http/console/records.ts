// The last records of a partition for the message browser, read through the
// domain LogStore (newest batches first) and decoded with the shared record
// walker. Control batches (transaction markers) hold no records to show.
import { decodeBatch } from '../../../../common/record-batch/decode.js';
import type { LogStore, TopicPartition } from '../../storage/log-store.js';

export interface ConsoleRecord {
  offset: number;
  timestampMs: number;
  /** 0 CreateTime, 1 LogAppendTime */
  timestampType: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: Array<{ key: string; value: Buffer | null }>;
}

/** Batches read per backwards step. */
const STEP = 16;

/**
 * The last `n` records before `logEnd` (oldest first). Walks batches back from
 * the log end until `n` records are found or the log start is passed.
 */
export async function lastRecords(store: LogStore, tp: TopicPartition, logEnd: number, logStart: number, n: number): Promise<ConsoleRecord[]> {
  const found: ConsoleRecord[][] = [];
  let count = 0;
  let before = logEnd - 1;
  while (count < n && before >= logStart) {
    const batches = await store.readBackwards(tp, before, STEP);
    for (const b of batches) {
      const records: ConsoleRecord[] = [];
      let current: ConsoleRecord | null = null;
      decodeBatch(b.bytes, {
        record(offset, timestampMs, timestampType, buf, keyStart, keyLen, valueStart, valueLen) {
          current = {
            offset, timestampMs, timestampType,
            key: keyLen < 0 ? null : Buffer.from(buf.subarray(keyStart, keyStart + keyLen)),
            value: valueLen < 0 ? null : Buffer.from(buf.subarray(valueStart, valueStart + valueLen)),
            headers: [],
          };
          records.push(current);
        },
        header(buf, keyStart, keyLen, valueStart, valueLen) {
          current?.headers.push({ key: buf.toString('utf8', keyStart, keyStart + keyLen), value: valueLen < 0 ? null : Buffer.from(buf.subarray(valueStart, valueStart + valueLen)) });
        },
      }, { verifyCrc: false });
      found.push(records.filter((r) => r.offset >= logStart && r.offset < logEnd));
      count += found[found.length - 1]!.length;
      if (count >= n) break;
    }
    if (batches.length < STEP) break;
    before = batches[batches.length - 1]!.baseOffset - 1;
  }
  return found.reverse().flat().slice(-n);
}
