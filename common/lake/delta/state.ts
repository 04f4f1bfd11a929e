import type { Action, AddFile, MetaData, Protocol, RemoveFile, Txn } from './actions.js';

/** Snapshot of a Delta table as of `version`. */
export class TableState {
  version = -1;
  protocol: Protocol | undefined;
  metaData: MetaData | undefined;
  readonly txns = new Map<string, Txn>();
  readonly files = new Map<string, AddFile>();
  readonly tombstones = new Map<string, RemoveFile>();
  /** commitInfo.timestamp of the newest commit applied, null when only a checkpoint was read. */
  lastCommitMs: number | null = null;

  apply(actions: Action[], version: number) {
    for (const a of actions) {
      if ('add' in a && a.add) {
        this.files.set(a.add.path, a.add);
        this.tombstones.delete(a.add.path);
      } else if ('remove' in a && a.remove) {
        this.files.delete(a.remove.path);
        this.tombstones.set(a.remove.path, a.remove);
      } else if ('txn' in a && a.txn) {
        this.txns.set(a.txn.appId, a.txn);
      } else if ('protocol' in a && a.protocol) {
        this.protocol = a.protocol;
      } else if ('metaData' in a && a.metaData) {
        this.metaData = a.metaData;
      } else if ('commitInfo' in a && a.commitInfo) {
        this.lastCommitMs = a.commitInfo.timestamp;
      }
    }
    this.version = version;
  }

  /** Actions that reconstruct this snapshot (for a checkpoint). */
  checkpointActions(minTombstoneTs = 0): Action[] {
    const out: Action[] = [];
    if (this.protocol) out.push({ protocol: this.protocol });
    if (this.metaData) out.push({ metaData: this.metaData });
    for (const t of this.txns.values()) out.push({ txn: t });
    for (const f of this.files.values()) out.push({ add: { ...f, dataChange: false } });
    for (const r of this.tombstones.values()) {
      // expired tombstones (older than the retention window) may be left out
      if ((r.deletionTimestamp ?? 0) >= minTombstoneTs) out.push({ remove: { ...r, dataChange: false } });
    }
    return out;
  }
}
