// Redis keys the archiver reads and writes: names come from common/keys.ts
// (docs/redis-keys.md, "Archiver keys"); this adapter keeps the archiver's
// (topic, partition) call style.
//
// A partition's keys carry its hash tag `{<topic>/<p>}` or, when the broker
// placed the partition on a chosen Redis Cluster shard, `{<topic>/<p>/<salt>}`.
// The salts live in the topic record (`rn:topics`, field `placement`), so every
// record the archiver reads is passed to place() before any key of that topic
// is built. In cluster mode the keys are strict: a topic never placed throws
// instead of silently reading (or leasing) a key on the wrong shard.
import { Keys as SharedKeys } from '../../common/keys.js';

export class Keys {
  private readonly k: SharedKeys;
  constructor(readonly prefix = 'rn', strict = false) {
    this.k = new SharedKeys(prefix, strict);
  }
  /** Partition keys of a topic whose record was not read throw (cluster mode) instead of assuming salt 0. */
  get strict(): boolean { return this.k.strict; }
  set strict(v: boolean) { this.k.strict = v; }
  /** Learns a topic's placement salts from its record (undefined: every salt 0). */
  place(topic: string, salts: readonly number[] | undefined): void { this.k.place(topic, salts); }
  forget(topic: string): void { this.k.forget(topic); }
  /** The partition's hash tag, `{<topic>/<p>}` or `{<topic>/<p>/<salt>}`. */
  tag(topic: string, p: number): string { return this.k.tag({ topic, partition: p }); }

  topics(): string { return this.k.topics; }
  log(topic: string, p: number): string { return this.k.log({ topic, partition: p }); }
  meta(topic: string, p: number): string { return this.k.meta({ topic, partition: p }); }
  lease(topic: string, p: number): string { return this.k.archiverLease({ topic, partition: p }); }
  /** The broker's open-transaction index of the partition (the LSO is its smallest value). */
  txns(topic: string, p: number): string { return this.k.txns({ topic, partition: p }); }
  /** The broker's aborted-transaction index of the partition. */
  aborted(topic: string, p: number): string { return this.k.aborted({ topic, partition: p }); }
  members(): string { return this.k.archivers; }
  /** Summaries of the topics' Delta tables (read by the broker's web console). */
  lakeTables(): string { return this.k.lakeTables; }
  /** The Schema Registry's schemas by id, and its subjects' version lists (read only: typed columns, schemas/registry.ts). */
  schemaRecords(): string { return this.k.schemaRecords; }
  schemaSubjects(): string { return this.k.schemaSubjects; }
}

/**
 * The `placement` field of a topic record: undefined when absent (every salt 0),
 * the salts when they are an array of non-negative integers, or null when the
 * field is present but unusable (the topic must then not be archived: its keys
 * are unknown).
 */
export function parsePlacement(v: unknown): number[] | undefined | null {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) return null;
  for (const s of v) if (typeof s !== 'number' || !Number.isSafeInteger(s) || s < 0) return null;
  return v as number[];
}

/** Delta `txn.appId` of a source partition: `runnel/<topic>/<partition>`. */
export function appIdOf(topic: string, partition: number): string {
  return `runnel/${topic}/${partition}`;
}
