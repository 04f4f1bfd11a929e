// worker_threads entry: runs Parquet/decoding jobs off the event loop.
import { parentPort } from 'node:worker_threads';
import { compactFiles, encodeDataFiles, encodeTypedFiles, type CompactJob, type EncodeJob } from './jobs.js';
import { readCheckpoint, writeCheckpoint } from '../../../common/lake/delta/checkpoint.js';
import type { Action } from '../../../common/lake/delta/actions.js';
import type { SchemaText } from '../schemas/typed.js';

export type JobKind = 'encode' | 'compact' | 'writeCheckpoint' | 'readCheckpoint';

/** Schema lookups a typed encode job is waiting for (answered by the pool: `schemaReply`). */
const lookups = new Map<number, { resolve: (r: Record<number, SchemaText | null>) => void; reject: (e: Error) => void }>();
let nextLookup = 1;

/** Asks the main thread (its cached registry reader) for the schemas of these ids. */
function lookup(jobId: number) {
  return (ids: number[]) =>
    new Promise<Record<number, SchemaText | null>>((resolve, reject) => {
      const id = nextLookup++;
      lookups.set(id, { resolve, reject });
      parentPort!.postMessage({ schemaRequest: id, job: jobId, ids });
    });
}

type Msg = { id: number; kind: JobKind; job: unknown } | { schemaReply: number; schemas?: Record<number, SchemaText | null>; error?: string };

parentPort!.on('message', async (msg: Msg) => {
  if ('schemaReply' in msg) {
    const r = lookups.get(msg.schemaReply);
    lookups.delete(msg.schemaReply);
    if (msg.error !== undefined) r?.reject(new Error(msg.error));
    else r?.resolve(msg.schemas ?? {});
    return;
  }
  try {
    if (msg.kind === 'encode') {
      const job = msg.job as EncodeJob;
      const r = job.typed ? await encodeTypedFiles(job, lookup(msg.id)) : encodeDataFiles(job);
      parentPort!.postMessage({ id: msg.id, ok: true, result: r }, r.files.map((f) => f.bytes.buffer as ArrayBuffer));
    } else if (msg.kind === 'compact') {
      const r = compactFiles(msg.job as CompactJob);
      parentPort!.postMessage({ id: msg.id, ok: true, result: r }, [r.bytes.buffer as ArrayBuffer]);
    } else if (msg.kind === 'writeCheckpoint') {
      const r = writeCheckpoint(msg.job as Action[]);
      parentPort!.postMessage({ id: msg.id, ok: true, result: r }, [r.buffer as ArrayBuffer]);
    } else {
      const r = readCheckpoint(msg.job as Uint8Array);
      parentPort!.postMessage({ id: msg.id, ok: true, result: r });
    }
  } catch (e) {
    const err = e as Error;
    parentPort!.postMessage({ id: msg.id, ok: false, error: { message: err.message, name: err.name, stack: err.stack } });
  }
});
