// A small worker_threads pool for Parquet jobs. The event loop only moves bytes.
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CompactJob, CompactResult, EncodeJob, EncodeResult, EncodedFile } from './jobs.js';
import type { Action } from '../../../common/lake/delta/actions.js';
import type { SchemaLookup } from '../schemas/typed.js';

// The inline mode's job code (Arrow, parquet-wasm) loads on its first job: with
// workers, the main thread never loads it, and the archiver starts faster.
const jobs = () => import('./jobs.js');
const checkpoints = () => import('../../../common/lake/delta/checkpoint.js');

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  /** a typed encode job's schema lookup (the worker asks through `schemaRequest` messages) */
  lookup?: SchemaLookup;
}

interface Slot {
  worker: Worker;
  busy: number;
}

export class ParquetPool {
  private slots: Slot[] = [];
  private pending = new Map<number, Pending & { slot: Slot }>();
  private nextId = 1;
  private readonly inline: boolean;
  private closed = false;
  /** worker threads (inline: jobs run one after another on the caller's thread, but a flush still splits by it) */
  readonly size: number;

  constructor(size: number, opts: { inline?: boolean } = {}) {
    const url = new URL('./worker.js', import.meta.url);
    this.inline = opts.inline === true || !existsSync(fileURLToPath(url));
    this.size = Math.max(1, size);
    if (this.inline) return;
    for (let i = 0; i < this.size; i++) this.spawn(url);
  }

  private spawn(url: URL) {
    const worker = new Worker(url);
    const slot: Slot = { worker, busy: 0 };
    worker.on('message', (m: { id: number; ok: boolean; result?: unknown; error?: { message: string }; schemaRequest?: number; job?: number; ids?: number[] }) => {
      if (m.schemaRequest !== undefined) {
        // a typed job needs schemas: looked up here (cached, schemas/registry.ts) and sent back;
        // a failed lookup (Redis away) fails the job, and the flush is retried
        const lookup = this.pending.get(m.job!)?.lookup ?? (async () => ({}));
        lookup(m.ids!).then(
          (schemas) => worker.postMessage({ schemaReply: m.schemaRequest, schemas }),
          (e: unknown) => worker.postMessage({ schemaReply: m.schemaRequest, error: (e as Error).message }),
        );
        return;
      }
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      p.slot.busy--;
      if (m.ok) p.resolve(m.result);
      else p.reject(new Error(m.error?.message ?? 'worker job failed'));
    });
    worker.on('error', (e) => this.failSlot(slot, e instanceof Error ? e : new Error(String(e)), url));
    worker.on('exit', (code) => {
      if (!this.closed) this.failSlot(slot, new Error(`parquet worker exited with code ${code}`), url);
    });
    worker.unref();
    this.slots.push(slot);
  }

  private failSlot(slot: Slot, e: Error, url: URL) {
    const idx = this.slots.indexOf(slot);
    if (idx < 0) return;
    this.slots.splice(idx, 1);
    for (const [id, p] of this.pending) {
      if (p.slot === slot) {
        this.pending.delete(id);
        p.reject(e);
      }
    }
    if (!this.closed) this.spawn(url);
  }

  private run<T>(kind: string, job: unknown, transfer: ArrayBuffer[], lookup?: SchemaLookup): Promise<T> {
    const slot = this.slots.reduce((a, b) => (b.busy < a.busy ? b : a));
    const id = this.nextId++;
    slot.busy++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, slot, lookup });
      slot.worker.postMessage({ id, kind, job }, transfer);
    });
  }

  /** `lookup` answers a typed job's schema requests (needed when `job.typed` is set). */
  async encode(job: EncodeJob, lookup?: SchemaLookup): Promise<EncodeResult> {
    if (this.inline) {
      const j = await jobs();
      return job.typed ? j.encodeTypedFiles(job, lookup ?? (async () => ({}))) : j.encodeDataFiles(job);
    }
    const transfer = [...new Set(job.batches.map((b) => b.buffer as ArrayBuffer))];
    return this.run<EncodeResult>('encode', job, transfer, lookup);
  }

  async compact(job: CompactJob): Promise<CompactResult> {
    if (this.inline) return (await jobs()).compactFiles(job);
    return this.run('compact', job, []);
  }

  async writeCheckpoint(actions: Action[]): Promise<Uint8Array> {
    if (this.inline) return (await checkpoints()).writeCheckpoint(actions);
    return this.run('writeCheckpoint', actions, []);
  }

  async readCheckpoint(bytes: Uint8Array): Promise<Action[]> {
    if (this.inline) return (await checkpoints()).readCheckpoint(bytes);
    return this.run('readCheckpoint', bytes, []);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots = [];
  }
}

export type { EncodedFile };
