// An in-memory RegistryStore for the core's unit tests: the same contract as
// the Redis store (redis-schema-store.ts), without the I/O.
import type { Compatibility, Mode, SchemaRecord, VersionEntry } from '../../../broker/src/schema-registry/model.js';
import type { RegisterOutcome, RegisterWrite, RegistryStore } from '../../../broker/src/schema-registry/store.js';

export class MemoryStore implements RegistryStore {
  nextId = 0;
  readonly records = new Map<number, SchemaRecord>();
  readonly digests = new Map<string, number>();
  readonly subjectVersions = new Map<string, VersionEntry[]>();
  readonly config = new Map<string | null, Compatibility>();
  readonly modes = new Map<string | null, Mode>();
  /** Called before each register write (a test may add a version "from another broker" here). */
  beforeRegister: (() => void) | null = null;

  async schema(id: number): Promise<SchemaRecord | null> { return this.records.get(id) ?? null; }
  async schemas(): Promise<Map<number, SchemaRecord>> { return new Map(this.records); }
  async idOf(digest: string): Promise<number | null> { return this.digests.get(digest) ?? null; }
  async subjects(): Promise<Map<string, VersionEntry[]>> { return new Map([...this.subjectVersions].map(([s, vs]) => [s, vs.map((v) => ({ ...v }))])); }
  async versions(subject: string): Promise<VersionEntry[]> { return (this.subjectVersions.get(subject) ?? []).map((v) => ({ ...v })); }

  async register(w: RegisterWrite): Promise<RegisterOutcome> {
    this.beforeRegister?.();
    const vs = this.subjectVersions.get(w.subject) ?? [];
    const given = w.id === undefined ? undefined : this.records.get(w.id);
    if (given && JSON.stringify(given) !== JSON.stringify(w.record)) return { ok: false, reason: 'id-taken' };
    let id = w.id ?? this.digests.get(w.digest) ?? null;
    const live = id === null ? undefined : vs.find((v) => v.id === id && !v.deleted);
    if (live) return { ok: true, id: live.id, version: live.version, created: false };
    const highest = vs.length ? vs[vs.length - 1]!.version : 0;
    if (w.version === undefined && w.expectedLatest !== highest) return { ok: false, reason: 'changed' };
    const version = w.version ?? highest + 1;
    if (vs.some((v) => v.version === version)) return { ok: false, reason: 'version-taken' };
    if (w.id !== undefined) {
      this.records.set(w.id, w.record);
      if (!this.digests.has(w.digest)) this.digests.set(w.digest, w.id);
      this.nextId = Math.max(this.nextId, w.id);
    } else if (id === null) {
      id = ++this.nextId;
      this.records.set(id, w.record);
      this.digests.set(w.digest, id);
    }
    vs.push({ version, id: id!, deleted: false });
    vs.sort((a, b) => a.version - b.version);
    this.subjectVersions.set(w.subject, vs);
    return { ok: true, id: id!, version, created: true };
  }

  async replaceVersions(subject: string, expected: readonly VersionEntry[], next: readonly VersionEntry[]): Promise<boolean> {
    if (JSON.stringify(this.subjectVersions.get(subject) ?? []) !== JSON.stringify(expected)) return false;
    if (next.length) this.subjectVersions.set(subject, next.map((v) => ({ ...v })));
    else this.subjectVersions.delete(subject);
    return true;
  }

  async compatibility(subject: string | null): Promise<Compatibility | null> { return this.config.get(subject) ?? null; }
  async setCompatibility(subject: string | null, level: Compatibility | null): Promise<void> {
    if (level) this.config.set(subject, level);
    else this.config.delete(subject);
  }
  async mode(subject: string | null): Promise<Mode | null> { return this.modes.get(subject) ?? null; }
  async setMode(subject: string | null, mode: Mode | null): Promise<void> {
    if (mode) this.modes.set(subject, mode);
    else this.modes.delete(subject);
  }
}
