// The Schema Registry's core (no I/O of its own: every read and write goes
// through the RegistryStore port): Confluent's semantics for subjects,
// versions, global ids, soft and hard deletes, compatibility levels, modes
// and references. The REST layer (rest.ts) maps routes to these methods.
import { createHash } from 'node:crypto';
import * as E from './errors.js';
import {
  DEFAULT_COMPATIBILITY, DEFAULT_MODE, MAX_VERSION, SCHEMA_TYPES, isCompatibility, isMode,
  type Compatibility, type Mode, type Reference, type SchemaRecord, type SchemaType, type VersionEntry,
} from './model.js';
import { isSupportedType, parseSchema, type ParsedSchema, type ReferencedSchema } from './schema-types.js';
import type { RegistryStore } from './store.js';

/** A subject's version as the API shows it. */
export interface SubjectVersion {
  subject: string;
  version: number;
  id: number;
  schemaType: SchemaType;
  schema: string;
  references: Reference[];
}

/** The body of a registration, lookup or compatibility test, as validated. */
export interface SchemaInput {
  schemaType: SchemaType;
  schema: string;
  references: Reference[];
  id?: number;
  version?: number;
}

/** "latest" (or -1) or a version number 1..2^31-1; anything else is 42202. */
export type VersionSpec = number | 'latest';

export function parseVersion(v: string): VersionSpec {
  if (v === 'latest' || v === '-1') return 'latest';
  if (!/^\d{1,10}$/.test(v)) throw E.invalidVersion(v);
  const n = Number(v);
  if (n < 1 || n > MAX_VERSION) throw E.invalidVersion(v);
  return n;
}

const isInt = (v: unknown, min: number, max: number): v is number => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

/** Validates a request body holding a schema (422 42201 for anything malformed). */
export function schemaInput(body: unknown): SchemaInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw E.invalidSchema('Invalid schema: the request body is not a JSON object');
  const b = body as Record<string, unknown>;
  if (typeof b.schema !== 'string' || b.schema === '') throw E.invalidSchema('Invalid schema: "schema" must be a non-empty string');
  const schemaType = b.schemaType ?? 'AVRO';
  if (!isSupportedType(schemaType)) throw E.invalidSchema(`Invalid schema type ${String(schemaType)} (supported: ${SCHEMA_TYPES.join(', ')})`);
  const references: Reference[] = [];
  if (b.references !== undefined && b.references !== null) {
    if (!Array.isArray(b.references)) throw E.invalidSchema('Invalid schema: "references" must be an array');
    for (const r of b.references as unknown[]) {
      const o = (r ?? {}) as Record<string, unknown>;
      if (typeof o.name !== 'string' || typeof o.subject !== 'string' || !isInt(o.version, 1, MAX_VERSION)) {
        throw E.invalidSchema(`Invalid schema: a reference needs "name", "subject" and "version": ${JSON.stringify(r)}`);
      }
      references.push({ name: o.name, subject: o.subject, version: o.version });
    }
  }
  const out: SchemaInput = { schemaType, schema: b.schema, references };
  if (b.id !== undefined && b.id !== null && b.id !== -1) {
    if (!isInt(b.id, 1, 2147483647)) throw E.invalidSchema(`Invalid schema: id ${JSON.stringify(b.id)} is not a positive integer`);
    out.id = b.id;
  }
  if (b.version !== undefined && b.version !== null && b.version !== -1) {
    if (!isInt(b.version, 1, MAX_VERSION)) throw E.invalidVersion(String(b.version));
    out.version = b.version;
  }
  return out;
}

const TRANSITIVE: ReadonlySet<Compatibility> = new Set(['BACKWARD_TRANSITIVE', 'FORWARD_TRANSITIVE', 'FULL_TRANSITIVE']);
const checksBackward = (l: Compatibility): boolean => l.startsWith('BACKWARD') || l.startsWith('FULL');
const checksForward = (l: Compatibility): boolean => l.startsWith('FORWARD') || l.startsWith('FULL');

/** A registration retried this many times when other brokers keep adding versions under it fails with 50001. */
const REGISTER_ATTEMPTS = 20;

export class SchemaRegistry {
  /** Parsed schemas by id (ids never change their schema, so entries never go stale). */
  private readonly parsed = new Map<number, ParsedSchema>();

  constructor(private readonly store: RegistryStore) {}

  schemaTypes(): string[] {
    return [...SCHEMA_TYPES];
  }

  // ---- subjects and versions

  async subjects(o: { deleted?: boolean; prefix?: string } = {}): Promise<string[]> {
    const all = await this.store.subjects();
    return [...all].filter(([s, vs]) => s.startsWith(o.prefix ?? '') && vs.some((v) => o.deleted || !v.deleted)).map(([s]) => s).sort();
  }

  async versions(subject: string, deleted = false): Promise<number[]> {
    const vs = (await this.store.versions(subject)).filter((v) => deleted || !v.deleted);
    if (vs.length === 0) throw E.subjectNotFound(subject);
    return vs.map((v) => v.version);
  }

  async version(subject: string, spec: VersionSpec, deleted = false): Promise<SubjectVersion> {
    const e = this.pick(subject, await this.store.versions(subject), spec, deleted);
    return this.subjectVersion(subject, e);
  }

  /** The version `spec` names (latest: the highest live one, or with `deleted` the highest of all). */
  private pick(subject: string, all: readonly VersionEntry[], spec: VersionSpec, deleted: boolean): VersionEntry {
    const vs = all.filter((v) => deleted || !v.deleted);
    if (all.length === 0 || (spec === 'latest' && vs.length === 0)) throw E.subjectNotFound(subject);
    const e = spec === 'latest' ? vs[vs.length - 1] : vs.find((v) => v.version === spec);
    if (!e) throw E.versionNotFound(spec);
    return e;
  }

  private async subjectVersion(subject: string, e: VersionEntry): Promise<SubjectVersion> {
    const r = await this.record(e.id);
    return { subject, version: e.version, id: e.id, schemaType: r.schemaType, schema: r.schema, references: r.references };
  }

  private async record(id: number): Promise<SchemaRecord> {
    const r = await this.store.schema(id);
    if (!r) throw E.schemaNotFound(id);
    return r;
  }

  // ---- registration and lookup

  async register(subject: string, input: SchemaInput): Promise<{ id: number }> {
    if (subject === '') throw E.invalidSubject(subject);
    const mode = await this.effectiveMode(subject);
    if (mode === 'READONLY') throw E.operationNotPermitted(`Subject ${subject} is in read-only mode`);
    if ((input.id !== undefined || input.version !== undefined) && mode !== 'IMPORT') {
      throw E.operationNotPermitted(`Subject ${subject} is not in import mode: an id or version may be given only in IMPORT mode`);
    }
    const candidate = await this.parse(input);
    const record: SchemaRecord = { schemaType: input.schemaType, schema: candidate.canonical, references: input.references };
    const digest = digestOf(record);
    for (let attempt = 0; attempt < REGISTER_ATTEMPTS; attempt++) {
      const all = await this.store.versions(subject);
      const live = all.filter((v) => !v.deleted);
      const existing = await this.store.idOf(digest);
      // Already registered under the subject: its id, without a compatibility check (Confluent does the same).
      if (existing !== null && input.id === undefined && live.some((v) => v.id === existing)) return { id: existing };
      if (mode !== 'IMPORT') {
        const level = await this.effectiveCompatibility(subject);
        const problems = await this.incompatibilities(level, candidate, live);
        if (problems.length) {
          throw E.incompatibleSchema(`Schema being registered is incompatible with an earlier schema for subject "${subject}", details: [${problems.join(', ')}]`);
        }
      }
      const latest = all.length ? all[all.length - 1]!.version : 0;
      const out = await this.store.register({
        subject, digest, record, expectedLatest: latest,
        ...(input.id !== undefined ? { id: input.id } : {}), ...(input.version !== undefined ? { version: input.version } : {}),
      });
      if (out.ok) return { id: out.id };
      if (out.reason === 'id-taken') throw E.idDoesNotMatch(`Schema id ${input.id} is already in use by a different schema`);
      if (out.reason === 'version-taken') throw E.operationNotPermitted(`Version ${input.version} of subject ${subject} already exists`);
      // 'changed': another version arrived since the check; check again against it.
    }
    throw E.storeError(`subject ${subject} kept changing during ${REGISTER_ATTEMPTS} registration attempts`);
  }

  async lookup(subject: string, input: SchemaInput, deleted = false): Promise<SubjectVersion> {
    const candidate = await this.parse(input);
    const vs = (await this.store.versions(subject)).filter((v) => deleted || !v.deleted);
    if (vs.length === 0) throw E.subjectNotFound(subject);
    const id = await this.store.idOf(digestOf({ schemaType: input.schemaType, schema: candidate.canonical, references: input.references }));
    const e = id === null ? undefined : vs.filter((v) => v.id === id).pop();
    if (!e) throw E.schemaNotFound();
    return this.subjectVersion(subject, e);
  }

  // ---- deletes

  async deleteSubject(subject: string, permanent: boolean): Promise<number[]> {
    if (await this.effectiveMode(subject) === 'READONLY') throw E.operationNotPermitted(`Subject ${subject} is in read-only mode`);
    for (;;) {
      const all = await this.store.versions(subject);
      if (all.length === 0) throw E.subjectNotFound(subject);
      const live = all.filter((v) => !v.deleted);
      if (permanent) {
        if (live.length) throw E.subjectNotSoftDeleted(subject);
        if (!(await this.store.replaceVersions(subject, all, []))) continue;
        // A subject deleted for good leaves no subject-level settings behind.
        await this.store.setCompatibility(subject, null);
        await this.store.setMode(subject, null);
        return all.map((v) => v.version);
      }
      if (live.length === 0) throw E.subjectSoftDeleted(subject);
      for (const v of live) await this.refuseIfReferenced(subject, v.version);
      if (await this.store.replaceVersions(subject, all, all.map((v) => ({ ...v, deleted: true })))) return live.map((v) => v.version);
    }
  }

  async deleteVersion(subject: string, spec: VersionSpec, permanent: boolean): Promise<number> {
    if (await this.effectiveMode(subject) === 'READONLY') throw E.operationNotPermitted(`Subject ${subject} is in read-only mode`);
    for (;;) {
      const all = await this.store.versions(subject);
      // latest: the highest live version (with permanent, the highest of all); a number names any version
      const e = this.pick(subject, all, spec, permanent || spec !== 'latest');
      if (permanent && !e.deleted) throw E.versionNotSoftDeleted(subject, e.version);
      if (!permanent && e.deleted) throw E.versionSoftDeleted(subject, e.version);
      await this.refuseIfReferenced(subject, e.version);
      const next = permanent ? all.filter((v) => v.version !== e.version) : all.map((v) => (v.version === e.version ? { ...v, deleted: true } : v));
      if (await this.store.replaceVersions(subject, all, next)) return e.version;
    }
  }

  private async refuseIfReferenced(subject: string, version: number): Promise<void> {
    const ids = await this.referrers(subject, version);
    if (ids.length) throw E.referenceExists(`One or more references exist to the schema {subject=${subject},version=${version}} (ids ${ids.join(', ')})`);
  }

  // ---- ids

  /**
   * The schema of a global id, as GET /schemas/ids/{id} serves it: soft-deleted
   * versions still serve it; once every version holding the id was deleted for
   * good (permanent=true) it is 40403, as Confluent answers. The record itself
   * stays in the store, so the archiver still decodes records written with it.
   */
  async schemaById(id: number): Promise<SchemaRecord> {
    const r = await this.record(id);
    for (const vs of (await this.store.subjects()).values()) if (vs.some((v) => v.id === id)) return r;
    throw E.schemaNotFound(id);
  }

  /** Every subject-version whose schema is `id` (soft-deleted ones only with `deleted`). */
  async idVersions(id: number, deleted = false): Promise<Array<{ subject: string; version: number }>> {
    await this.record(id);
    const out: Array<{ subject: string; version: number }> = [];
    let held = false;
    for (const [subject, vs] of await this.store.subjects()) {
      for (const v of vs) {
        if (v.id !== id) continue;
        held = true;
        if (deleted || !v.deleted) out.push({ subject, version: v.version });
      }
    }
    if (!held) throw E.schemaNotFound(id); // every version holding it deleted for good (schemaById)
    return out.sort((a, b) => (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : a.version - b.version));
  }

  async idSubjects(id: number, deleted = false): Promise<string[]> {
    return [...new Set((await this.idVersions(id, deleted)).map((v) => v.subject))];
  }

  /** Ids of the schemas, with a live version somewhere, that reference `subject` version `spec`. */
  async referencedBy(subject: string, spec: VersionSpec): Promise<number[]> {
    const e = this.pick(subject, await this.store.versions(subject), spec, false);
    return this.referrers(subject, e.version);
  }

  private async referrers(subject: string, version: number): Promise<number[]> {
    const referring: number[] = [];
    for (const [id, r] of await this.store.schemas()) if (r.references.some((x) => x.subject === subject && x.version === version)) referring.push(id);
    if (referring.length === 0) return [];
    const liveIds = new Set<number>();
    for (const vs of (await this.store.subjects()).values()) for (const v of vs) if (!v.deleted) liveIds.add(v.id);
    return referring.filter((id) => liveIds.has(id)).sort((a, b) => a - b);
  }

  // ---- compatibility

  async effectiveCompatibility(subject: string): Promise<Compatibility> {
    return (await this.store.compatibility(subject)) ?? (await this.store.compatibility(null)) ?? DEFAULT_COMPATIBILITY;
  }

  /** POST /compatibility/subjects/{s}/versions[/{v}]: `spec` null tests against the versions the subject's level names. */
  async testCompatibility(subject: string, spec: VersionSpec | null, input: SchemaInput): Promise<{ compatible: boolean; messages: string[] }> {
    const candidate = await this.parse(input);
    const all = await this.store.versions(subject);
    const level = await this.effectiveCompatibility(subject);
    let messages: string[];
    if (spec === null) {
      messages = await this.incompatibilities(level, candidate, all.filter((v) => !v.deleted));
    } else {
      const e = this.pick(subject, all, spec, false);
      // One named version: the level's directions, against that version only.
      messages = await this.incompatibilities(level, candidate, [e], false);
    }
    return { compatible: messages.length === 0, messages };
  }

  /**
   * Why `candidate` may not follow `live` (ascending) under `level`: BACKWARD,
   * the candidate must read data of the latest version (of every version when
   * transitive); FORWARD, the latest (every) version must read the
   * candidate's data; FULL, both; NONE, nothing is checked.
   */
  private async incompatibilities(level: Compatibility, candidate: ParsedSchema, live: readonly VersionEntry[], transitive = TRANSITIVE.has(level)): Promise<string[]> {
    if (level === 'NONE' || live.length === 0) return [];
    const against = transitive ? [...live].reverse() : [live[live.length - 1]!];
    const out: string[] = [];
    for (const v of against) {
      const old = await this.parsedById(v.id);
      const details = (errorType: string, description: string): string =>
        `{errorType:'${errorType}', description:'${description.replace(/'/g, '"')}', oldSchemaVersion: ${v.version}, compatibility: '${level}'}`;
      if (old.schemaType !== candidate.schemaType) {
        out.push(details('TYPE_MISMATCH', `the new schema is ${candidate.schemaType}, version ${v.version} is ${old.schemaType}`));
        continue;
      }
      if (checksBackward(level)) {
        const why = candidate.cannotRead(old);
        if (why) out.push(details('BACKWARD', `the new schema cannot read data written with version ${v.version}: ${why}`));
      }
      if (checksForward(level)) {
        const why = old.cannotRead(candidate);
        if (why) out.push(details('FORWARD', `version ${v.version} cannot read data written with the new schema: ${why}`));
      }
    }
    return out;
  }

  async setCompatibility(subject: string | null, body: unknown): Promise<Compatibility> {
    const raw = (body as { compatibility?: unknown } | null)?.compatibility;
    const level = typeof raw === 'string' ? raw.toUpperCase() : raw;
    if (!isCompatibility(level)) throw E.invalidCompatibility();
    await this.store.setCompatibility(subject, level);
    return level;
  }

  /** GET /config[/{s}]: a subject without its own level is 40408 unless `defaultToGlobal`. */
  async getCompatibility(subject: string | null, defaultToGlobal = false): Promise<Compatibility> {
    const own = await this.store.compatibility(subject);
    if (own) return own;
    if (subject !== null && !defaultToGlobal) throw E.subjectCompatibilityNotConfigured(subject);
    return (await this.store.compatibility(null)) ?? DEFAULT_COMPATIBILITY;
  }

  /** DELETE /config[/{s}]: removes the level set there and returns it (the global one falls back to BACKWARD). */
  async deleteCompatibility(subject: string | null): Promise<Compatibility> {
    if (subject !== null && (await this.store.versions(subject)).length === 0) throw E.subjectNotFound(subject);
    const own = await this.store.compatibility(subject);
    if (!own && subject !== null) throw E.subjectCompatibilityNotConfigured(subject);
    await this.store.setCompatibility(subject, null);
    return own ?? DEFAULT_COMPATIBILITY;
  }

  // ---- modes

  async effectiveMode(subject: string): Promise<Mode> {
    return (await this.store.mode(subject)) ?? (await this.store.mode(null)) ?? DEFAULT_MODE;
  }

  async getMode(subject: string | null, defaultToGlobal = false): Promise<Mode> {
    const own = await this.store.mode(subject);
    if (own) return own;
    if (subject !== null && !defaultToGlobal) throw E.subjectModeNotConfigured(subject);
    return (await this.store.mode(null)) ?? DEFAULT_MODE;
  }

  /** PUT /mode[/{s}]: IMPORT on a registry (subject) that holds schemas needs `force`, as Confluent asks. */
  async setMode(subject: string | null, body: unknown, force = false): Promise<Mode> {
    const raw = (body as { mode?: unknown } | null)?.mode;
    const mode = typeof raw === 'string' ? raw.toUpperCase() : raw;
    if (!isMode(mode)) throw E.invalidMode(raw);
    if (mode === 'IMPORT' && !force) {
      const holds = subject === null ? (await this.subjects({ deleted: true })).length > 0 : (await this.store.versions(subject)).length > 0;
      if (holds) throw E.operationNotPermitted(subject === null ? 'Cannot import since found existing subjects' : `Cannot import since subject ${subject} has schemas`);
    }
    await this.store.setMode(subject, mode);
    return mode;
  }

  async deleteMode(subject: string | null): Promise<Mode> {
    const own = await this.store.mode(subject);
    if (!own && subject !== null) throw E.subjectModeNotConfigured(subject);
    await this.store.setMode(subject, null);
    return own ?? DEFAULT_MODE;
  }

  // ---- parsing

  private async parse(input: SchemaInput): Promise<ParsedSchema> {
    return parseSchema(input.schemaType, input.schema, await this.referencedTexts(input.references));
  }

  private async parsedById(id: number): Promise<ParsedSchema> {
    let p = this.parsed.get(id);
    if (!p) {
      const r = await this.record(id);
      p = parseSchema(r.schemaType, r.schema, await this.referencedTexts(r.references));
      this.parsed.set(id, p);
    }
    return p;
  }

  /** The schemas `refs` name (with the name each is referenced by), each after those it references itself (once each; a cycle ends). */
  private async referencedTexts(refs: readonly Reference[], seen = new Set<string>(), out: ReferencedSchema[] = []): Promise<ReferencedSchema[]> {
    for (const r of refs) {
      const key = `${r.subject}\u0000${r.version}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const vs = await this.store.versions(r.subject);
      const e = vs.find((v) => v.version === r.version);
      if (!e) throw E.invalidSchema(`Invalid schema: reference '${r.name}' names subject '${r.subject}' version ${r.version}, which does not exist`);
      const rec = await this.record(e.id);
      await this.referencedTexts(rec.references, seen, out);
      out.push({ name: r.name, schema: rec.schema });
    }
    return out;
  }
}

/** One schema, one digest: type, stored text and references (a different reference is a different schema). */
export function digestOf(r: SchemaRecord): string {
  return createHash('sha256').update(JSON.stringify([r.schemaType, r.schema, r.references.map((x) => [x.name, x.subject, x.version])])).digest('hex');
}
