// The remote tier's worker threads (decode-worker.ts): a 128 MiB data file is
// decoded without blocking the broker's event loop. A job that fails, times
// out or loses its worker rejects; a dead or stuck worker is replaced.
//
// From dist/ the worker is decode-worker.js beside this file. From the
// TypeScript sources (vitest) it is decode-worker.ts, loaded by a bootstrap
// that maps `./x.js` imports to `./x.ts` and transpiles with the project's
// `typescript`; without it, jobs run inline on the caller's thread.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Action } from '../../../common/lake/delta/actions.js';
import type { DecodeJobKind } from './decode-worker.js';
import type { PartBatches, RebuildJob } from './rebuild.js';

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  slot: Slot;
  timer: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  busy: number;
}

/** Worker code that loads a .ts entry with NodeNext-style imports (sources only). */
const SOURCE_BOOTSTRAP = `
const { registerHooks } = require('node:module');
const { readFileSync } = require('node:fs');
const { fileURLToPath } = require('node:url');
const { entry, typescript } = require('node:worker_threads').workerData;
const ts = require(typescript);
const rel = (s) => s.startsWith('./') || s.startsWith('../');
registerHooks({
  resolve(s, c, next) {
    try { return next(s, c); } catch (e) {
      if (rel(s) && s.endsWith('.js')) { try { return next(s.slice(0, -3) + '.ts', c); } catch {} }
      throw e;
    }
  },
  load(url, c, next) {
    if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, c);
    const file = fileURLToPath(url);
    const out = ts.transpileModule(readFileSync(file, 'utf8'), { fileName: file, compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
    return { format: 'module', source: out.outputText, shortCircuit: true };
  },
});
import(entry);
`;

type Spawn = () => Worker;

/**
 * The worker's node options: inherited as Node does by default (which drops
 * the V8 heap flags `runnel broker` re-executes itself with: given explicitly,
 * `--initial-old-space-size` makes `new Worker` throw ERR_WORKER_INVALID_EXEC_ARGV),
 * except where the process runs with `--input-type`, which would misread the
 * worker's entry: then only the other options are given.
 */
const workerOptions = (): { execArgv?: string[] } => {
  if (!process.execArgv.some((a) => a.startsWith('--input-type'))) return {};
  return { execArgv: process.execArgv.filter((a, i, all) => !a.startsWith('--input-type') && all[i - 1] !== '--input-type' && !V8_HEAP_FLAG.test(a)) };
};
const V8_HEAP_FLAG = /^--(initial|max)-(old|semi|young)-space-size|^--(initial|max)-heap-size/;

function spawner(): Spawn | null {
  const js = new URL('./decode-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(js))) return () => new Worker(js, workerOptions());
  const src = new URL('./decode-worker.ts', import.meta.url);
  if (!existsSync(fileURLToPath(src))) return null;
  let tsPath: string;
  try {
    tsPath = createRequire(import.meta.url).resolve('typescript');
  } catch {
    return null;
  }
  return () => new Worker(SOURCE_BOOTSTRAP, { eval: true, ...workerOptions(), workerData: { entry: src.href, typescript: tsPath } });
}

export class DecodePool {
  private slots: Slot[] = [];
  private pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;
  private readonly spawn: Spawn | null;
  /** Workers replaced after an exit, an error or a stuck job. */
  replaced = 0;

  constructor(
    readonly size: number,
    /** A job running longer than this loses its worker. */
    private readonly jobTimeoutMs: number,
  ) {
    this.spawn = spawner();
  }

  /** Workers start with the first job: a broker whose topics are never read from the lake starts none. */
  private start(): void {
    while (this.slots.length < Math.max(1, this.size)) this.add();
  }

  /** Whether jobs run in worker threads (false: inline). */
  get threaded(): boolean {
    return this.spawn !== null;
  }

  private add(): void {
    const worker = this.spawn!();
    const slot: Slot = { worker, busy: 0 };
    worker.on('message', (m: { id: number; ok: boolean; result?: unknown; error?: { message: string } }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      clearTimeout(p.timer);
      slot.busy--;
      if (m.ok) p.resolve(m.result);
      else p.reject(new Error(m.error?.message ?? 'decode job failed'));
    });
    worker.on('error', (e) => this.drop(slot, e instanceof Error ? e : new Error(String(e))));
    worker.on('exit', (code) => this.drop(slot, new Error(`lake decode worker exited with code ${code}`)));
    worker.unref();
    this.slots.push(slot);
  }

  /** Fails the slot's jobs and starts a new worker in its place. */
  private drop(slot: Slot, e: Error): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    for (const [id, p] of this.pending) {
      if (p.slot !== slot) continue;
      this.pending.delete(id);
      clearTimeout(p.timer);
      p.reject(e);
    }
    void slot.worker.terminate().catch(() => {});
    if (!this.closed) {
      this.replaced++;
      this.add();
    }
  }

  private run<T>(kind: DecodeJobKind, job: unknown, transfer: ArrayBuffer[]): Promise<T> {
    if (this.closed) return Promise.reject(new Error('lake decode pool closed'));
    this.start();
    const slot = this.slots.reduce((a, b) => (b.busy < a.busy ? b : a));
    const id = this.nextId++;
    slot.busy++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => this.drop(slot, new Error(`lake decode job ran past ${this.jobTimeoutMs} ms`)), this.jobTimeoutMs);
      timer.unref();
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, slot, timer });
      slot.worker.postMessage({ id, kind, job }, transfer);
    });
  }

  /** Decodes data files into batches; `files` are transferred (unusable afterwards). */
  async rebuild(job: RebuildJob): Promise<PartBatches[]> {
    if (!this.spawn) return (await import('./rebuild.js')).rebuild(job);
    return this.run('rebuild', job, job.files.map((f) => f.buffer as ArrayBuffer));
  }

  async readCheckpoint(bytes: Uint8Array): Promise<Action[]> {
    if (!this.spawn) return (await import('../../../common/lake/delta/checkpoint.js')).readCheckpoint(bytes);
    return this.run('checkpoint', bytes, []);
  }

  /** Kills a worker as a crash would (tests of the replacement). */
  crashOne(): void {
    const s = this.slots[0];
    if (s) void s.worker.terminate();
  }

  async close(): Promise<void> {
    this.closed = true;
    const slots = this.slots;
    this.slots = [];
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      clearTimeout(p.timer);
      p.reject(new Error('lake decode pool closed'));
    }
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}
