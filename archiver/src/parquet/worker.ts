// worker_threads entry: runs Parquet/decoding jobs off the event loop.
import { parentPort } from 'node:worker_threads';
import { compactFiles, encodeDataFiles, type CompactJob, type EncodeJob } from './jobs.js';
import { readCheckpoint, writeCheckpoint } from '../../../common/lake/delta/checkpoint.js';
import type { Action } from '../../../common/lake/delta/actions.js';

export type JobKind = 'encode' | 'compact' | 'writeCheckpoint' | 'readCheckpoint';

parentPort!.on('message', (msg: { id: number; kind: JobKind; job: unknown }) => {
  try {
    if (msg.kind === 'encode') {
      const r = encodeDataFiles(msg.job as EncodeJob);
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
