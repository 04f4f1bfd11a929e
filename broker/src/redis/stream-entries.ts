// Stream entries as the log store reads them (one Kafka batch per entry, id
// `<baseOffset>-1`, the batch in field `b`) and the store's error mapping.
import { RunnelError } from '../../../common/errors.js';
import type { StoredBatch } from '../storage/log-store.js';
import { baseOfEntryId } from './keys.js';

export type RawEntry = [Buffer, Buffer[]];

export function toBatches(entries: RawEntry[] | null | undefined): StoredBatch[] {
  if (!entries) return [];
  const out: StoredBatch[] = new Array(entries.length);
  for (let i = 0; i < entries.length; i++) {
    const [id, fields] = entries[i]!;
    out[i] = { baseOffset: baseOfEntryId(id), bytes: fieldValue(fields) };
  }
  return out;
}

export function fieldValue(fields: Buffer[]): Buffer {
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i]!.length === 1 && fields[i]![0] === 0x62 /* 'b' */) return fields[i + 1]!;
  }
  throw new RunnelError('STORAGE_CORRUPT', 'stream entry without a batch field');
}

/** Every Redis failure leaves the store as a RunnelError(STORAGE_UNAVAILABLE). */
export async function guard<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    throw storageError(e);
  }
}

/**
 * guard() with a deadline: a command not answered within `ms` fails as
 * STORAGE_UNAVAILABLE. For commands that are safe to give up on (reads,
 * compare-and-set writes): after a Redis Cluster primary is killed, ioredis
 * has been seen to hold a command in its retry queue for two minutes.
 */
export async function guardWithin<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`redis did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } catch (e) {
    throw storageError(e);
  } finally {
    clearTimeout(timer);
  }
}

export function storageError(e: unknown): RunnelError {
  if (e instanceof RunnelError) return e;
  return new RunnelError('STORAGE_UNAVAILABLE', e instanceof Error ? e.message : String(e), { cause: e });
}

/** The replies of a MULTI ... EXEC, or its first error as STORAGE_UNAVAILABLE. */
export function execReplies(out: Array<[Error | null, unknown]> | null): unknown[] {
  if (!out) throw storageError(new Error('transaction aborted'));
  const failed = out.find(([e]) => e)?.[0];
  if (failed) throw storageError(failed);
  return out.map(([, v]) => v);
}
