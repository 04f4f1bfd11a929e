// The storage port of the Schema Registry: the few reads and atomic writes the
// core (registry.ts) needs. The Redis implementation is redis/redis-schema-store.ts;
// every write that depends on what was read is a compare-and-set, so brokers
// sharing one store stay consistent without talking to each other.
import type { Compatibility, Mode, SchemaRecord, VersionEntry } from './model.js';

export interface RegisterWrite {
  subject: string;
  /** Digest of the schema's type, canonical text and references: equal schemas get one id. */
  digest: string;
  record: SchemaRecord;
  /**
   * The subject's highest version (soft-deleted ones included, 0 for none)
   * when the compatibility check was made: the write is refused ('changed')
   * if another version arrived since, so no version skips the check.
   */
  expectedLatest: number;
  /** IMPORT mode: the id and version to use instead of assigning them. */
  id?: number;
  version?: number;
}

export type RegisterOutcome =
  | { ok: true; id: number; version: number; created: boolean }
  | { ok: false; reason: 'changed' | 'id-taken' | 'version-taken' };

export interface RegistryStore {
  /** The schema of a global id, or null. */
  schema(id: number): Promise<SchemaRecord | null>;
  /** Every schema by id (for the rare scans: references, ids' versions). */
  schemas(): Promise<Map<number, SchemaRecord>>;
  /** The id of the schema with this digest, or null. */
  idOf(digest: string): Promise<number | null>;
  /** Every subject that has a version (soft-deleted included), with its versions in ascending order. */
  subjects(): Promise<Map<string, VersionEntry[]>>;
  /** One subject's versions in ascending order, soft-deleted included; [] when it has none. */
  versions(subject: string): Promise<VersionEntry[]>;
  /**
   * Atomically: the schema's id (the digest's, else a new one), then a new
   * version of the subject unless a live version already holds that id.
   */
  register(w: RegisterWrite): Promise<RegisterOutcome>;
  /** Replaces a subject's versions if they are still `expected` (false: they changed, read again); [] removes the subject. */
  replaceVersions(subject: string, expected: readonly VersionEntry[], next: readonly VersionEntry[]): Promise<boolean>;
  /** Compatibility level of a subject, or the global one (subject null); null when none is set. */
  compatibility(subject: string | null): Promise<Compatibility | null>;
  /** Sets (or, with null, removes) a subject's or the global compatibility level. */
  setCompatibility(subject: string | null, level: Compatibility | null): Promise<void>;
  mode(subject: string | null): Promise<Mode | null>;
  setMode(subject: string | null, mode: Mode | null): Promise<void>;
}
