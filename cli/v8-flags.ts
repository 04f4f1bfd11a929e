// V8 settings for the broker and archiver processes, set before anything else
// is loaded (this module is cli/runnel.ts's first import).
//
// Both move most bytes through Buffers: socket chunks, request frames, Redis
// replies. Each one is an ArrayBuffer whose memory is outside V8's heap. By
// default V8 starts a full (mark-compact) GC each time such external memory
// grows by a fixed soft limit, which at 100 MB/s of produce traffic meant about
// 10 full GCs a second of a 15 MB heap: 30% of the broker's CPU. Counting
// external memory in V8's global limit instead (which grows with the heap, as
// the young and old generations do) keeps it bounded with a third of the full
// GCs. Measured: docs/architecture.md, "Garbage collection".
import v8 from 'node:v8';

export const V8_FLAGS = ['--external-memory-accounted-in-global-limit'] as const;

/** The flag exists in the V8 of Node 26 (the LTS ./runnel runs on), not in Node 20's, where V8 would print an error. */
export const V8_FLAGS_APPLY = Number(process.versions.node.split('.')[0]) >= 26;

if (V8_FLAGS_APPLY) for (const flag of V8_FLAGS) v8.setFlagsFromString(flag);
