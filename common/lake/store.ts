// Object storage seen by the archiver: keys are '/'-separated paths relative to the lake root.

export interface ObjectInfo {
  key: string;
  size: number;
  lastModified: number; // ms since epoch
}

export interface ObjectStore {
  readonly url: string;
  /** Unconditional write (data files, checkpoints, _last_checkpoint). */
  put(key: string, body: Uint8Array): Promise<void>;
  /** Create only if absent. Returns false if the key already exists (someone else won). */
  putIfAbsent(key: string, body: Uint8Array): Promise<boolean>;
  /** null if absent. */
  get(key: string): Promise<Buffer | null>;
  /** All keys under `prefix` (recursive), in lexicographic order, optionally only those > startAfter. */
  list(prefix: string, startAfter?: string): Promise<ObjectInfo[]>;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}
