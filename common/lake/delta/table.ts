// A Delta table in an ObjectStore: log replay (checkpoint + later commits),
// put-if-absent commits with conflict re-planning, and checkpoints.
import { randomUUID } from 'node:crypto';
import type { ObjectStore } from '../store.js';
import { type Action, commitTxnId, decodeCommit, encodeCommit, pad20 } from './actions.js';
import { TableState } from './state.js';
import { TornCommit } from './torn.js';

export type Planner = (state: TableState) => Action[] | null;

export type CommitOutcome =
  | { status: 'committed'; version: number; txnId: string; attempts: number }
  | { status: 'aborted'; txnId: string; attempts: number };

/** Parquet checkpoint codec; the archiver runs it in a worker thread. */
export interface CheckpointCodec {
  write(actions: Action[]): Promise<Uint8Array>;
  read(bytes: Uint8Array): Promise<Action[]>;
}

/** The codec on the caller's thread, loaded on first use (Arrow and parquet-wasm are large). */
const inlineCodec: CheckpointCodec = {
  write: async (a) => (await import('./checkpoint.js')).writeCheckpoint(a),
  read: async (b) => (await import('./checkpoint.js')).readCheckpoint(b),
};

export class DeltaTable {
  state = new TableState();
  constructor(
    readonly store: ObjectStore,
    readonly root: string,
    private readonly codec: CheckpointCodec = inlineCodec,
  ) {}

  logPrefix() {
    return `${this.root}/_delta_log/`;
  }
  commitKey(v: number) {
    return `${this.logPrefix()}${pad20(v)}.json`;
  }

  /** The actions of commit `v`, null if absent; TornCommit (RN4008) if it does not parse. */
  async readCommit(v: number): Promise<Action[] | null> {
    const key = this.commitKey(v);
    const b = await this.store.get(key);
    if (!b) return null;
    try {
      return decodeCommit(b);
    } catch (e) {
      if (e instanceof SyntaxError) throw new TornCommit(key, e);
      throw e;
    }
  }

  /** Full replay from the last checkpoint (if any) plus the later JSON commits. */
  async load(): Promise<TableState> {
    const st = new TableState();
    let from = -1;
    const lc = await this.store.get(`${this.logPrefix()}_last_checkpoint`);
    if (lc) {
      try {
        const info = JSON.parse(lc.toString('utf8')) as { version: number; parts?: number };
        const keys = info.parts
          ? Array.from({ length: info.parts }, (_, i) => `${pad20(info.version)}.checkpoint.${pad20(i + 1).slice(-10)}.${pad20(info.parts!).slice(-10)}.parquet`)
          : [`${pad20(info.version)}.checkpoint.parquet`];
        const actions: Action[] = [];
        for (const k of keys) {
          const b = await this.store.get(this.logPrefix() + k);
          if (!b) throw new Error(`checkpoint part ${k} missing`);
          actions.push(...(await this.codec.read(b)));
        }
        st.apply(actions, info.version);
        from = info.version;
      } catch (e) {
        // unreadable checkpoint: fall back to replaying every JSON commit
        process.emitWarning(`delta: ignoring checkpoint of ${this.root}: ${(e as Error).message}`);
        st.version = -1;
        from = -1;
        return this.replayFrom(new TableState(), -1);
      }
    }
    return this.replayFrom(st, from);
  }

  private async replayFrom(st: TableState, from: number): Promise<TableState> {
    const listed = await this.store.list(this.logPrefix(), from >= 0 ? `${this.logPrefix()}${pad20(from)}.zzz` : undefined);
    const versions = listed
      .map((o) => /\/(\d{20})\.json$/.exec(o.key))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .filter((v) => v > from)
      .sort((a, b) => a - b);
    let expect = from + 1;
    for (const v of versions) {
      if (v !== expect) break;
      const actions = await this.readCommit(v);
      if (!actions) break;
      st.apply(actions, v);
      expect = v + 1;
    }
    this.state = st;
    await this.update();
    return this.state;
  }

  /** Apply commits written after the current version (probing by name). */
  async update(): Promise<number> {
    let n = 0;
    for (;;) {
      const v = this.state.version + 1;
      const a = await this.readCommit(v);
      if (!a) return n;
      this.state.apply(a, v);
      n++;
    }
  }

  /**
   * Commit the actions returned by `plan` at the next version with put-if-absent.
   * On conflict, the winner is applied and `plan` is asked again (it may return null
   * to abort). A winner carrying our own txnId (our earlier attempt whose response was
   * lost) counts as success.
   */
  async commit(plan: Planner, operation: string, txnId = randomUUID()): Promise<CommitOutcome> {
    for (let attempt = 1; ; attempt++) {
      const actions = plan(this.state);
      if (!actions) return { status: 'aborted', txnId, attempts: attempt };
      const v = this.state.version + 1;
      const all: Action[] = [
        {
          commitInfo: {
            timestamp: Date.now(),
            operation,
            operationParameters: operation === 'WRITE' ? { mode: 'Append' } : {},
            txnId,
            engineInfo: 'runnel-archiver/0.1.0',
            isBlindAppend: operation === 'WRITE',
          },
        },
        ...actions,
      ];
      if (await this.store.putIfAbsent(this.commitKey(v), encodeCommit(all))) {
        this.state.apply(all, v);
        return { status: 'committed', version: v, txnId, attempts: attempt };
      }
      const winner = await this.readCommit(v);
      if (!winner) throw new Error(`commit ${v} of ${this.root} exists but cannot be read`);
      this.state.apply(winner, v);
      if (commitTxnId(winner) === txnId) return { status: 'committed', version: v, txnId, attempts: attempt };
      await this.update();
    }
  }

  /** Write `<version>.checkpoint.parquet` and `_last_checkpoint` for the current state. */
  async checkpoint(minTombstoneTs = 0): Promise<number> {
    const v = this.state.version;
    const actions = this.state.checkpointActions(minTombstoneTs);
    const bytes = await this.codec.write(actions);
    await this.store.put(`${this.logPrefix()}${pad20(v)}.checkpoint.parquet`, bytes);
    const numOfAddFiles = actions.filter((a) => 'add' in a).length;
    await this.store.put(
      `${this.logPrefix()}_last_checkpoint`,
      Buffer.from(JSON.stringify({ version: v, size: actions.length, sizeInBytes: bytes.length, numOfAddFiles })),
    );
    return v;
  }
}
