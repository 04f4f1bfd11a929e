// worker_threads entry of the remote tier: Parquet decoding and batch
// rebuilding (rebuild.ts) and Delta checkpoint reading, off the event loop.
// Result buffers are transferred, not copied.
import { parentPort } from 'node:worker_threads';
import { readCheckpoint } from '../../../common/lake/delta/checkpoint.js';
import { rebuild, type RebuildJob } from './rebuild.js';

export type DecodeJobKind = 'rebuild' | 'checkpoint';

parentPort!.on('message', (msg: { id: number; kind: DecodeJobKind; job: unknown }) => {
  try {
    if (msg.kind === 'rebuild') {
      const parts = rebuild(msg.job as RebuildJob);
      parentPort!.postMessage({ id: msg.id, ok: true, result: parts }, parts.flatMap((p) => [p.bytes.buffer as ArrayBuffer, p.meta.buffer as ArrayBuffer]));
    } else {
      parentPort!.postMessage({ id: msg.id, ok: true, result: readCheckpoint(msg.job as Uint8Array) });
    }
  } catch (e) {
    parentPort!.postMessage({ id: msg.id, ok: false, error: { message: (e as Error).message } });
  }
});
