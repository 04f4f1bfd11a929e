// The Schema Registry's store in Redis (docs/redis-keys.md, "Schema Registry
// keys"): every key under the hash tag {schemas}, so the registration script
// takes them all on one Redis Cluster shard. Registration is
// lua/schema-register.lua (one id per schema, even for two brokers at once);
// deletes are compare-and-set writes of a subject's version list
// (lua/schema-versions.lua); settings are plain hash fields.
import type { RedisClient as Redis } from '../../../common/redis/connect.js';
import { Keys } from './keys.js';
import { luaSource } from './lua.js';
import { guard } from './stream-entries.js';
import { isCompatibility, isMode, type Compatibility, type Mode, type SchemaRecord, type VersionEntry } from '../schema-registry/model.js';
import type { RegisterOutcome, RegisterWrite, RegistryStore } from '../schema-registry/store.js';

type SchemaRedis = Redis & {
  schemaRegister(next: string, ids: string, digests: string, subjects: string, ...argv: string[]): Promise<[string, number?, number?, number?]>;
  schemaVersions(subjects: string, subject: string, expected: string, next: string): Promise<number>;
};

/** The field of the global settings hash; a subject's are fields of their own hashes. */
const GLOBAL = { compatibility: 'compatibility', mode: 'mode' } as const;

function decodeVersions(raw: string | null | undefined): VersionEntry[] {
  if (!raw) return [];
  try {
    const v = JSON.parse(raw) as unknown;
    if (!Array.isArray(v)) return []; // cjson writes an empty list as {}
    return (v as unknown[][]).map((e) => ({ version: Number(e[0]), id: Number(e[1]), deleted: Number(e[2]) === 1 }));
  } catch {
    return [];
  }
}

const encodeVersions = (vs: readonly VersionEntry[]): string => JSON.stringify(vs.map((v) => [v.version, v.id, v.deleted ? 1 : 0]));

function decodeRecord(raw: string | null | undefined): SchemaRecord | null {
  if (!raw) return null;
  const r = JSON.parse(raw) as Partial<SchemaRecord>;
  return { schemaType: r.schemaType ?? 'AVRO', schema: String(r.schema), references: r.references ?? [] };
}

export class RedisSchemaStore implements RegistryStore {
  private readonly k: Keys;
  private readonly redis: SchemaRedis;

  constructor(redis: Redis, prefix: string) {
    this.k = new Keys(prefix);
    redis.defineCommand('schemaRegister', { numberOfKeys: 4, lua: luaSource('schema-register') });
    redis.defineCommand('schemaVersions', { numberOfKeys: 1, lua: luaSource('schema-versions') });
    this.redis = redis as SchemaRedis;
  }

  async schema(id: number): Promise<SchemaRecord | null> {
    return decodeRecord(await guard(this.redis.hget(this.k.schemaRecords, String(id))));
  }

  async schemas(): Promise<Map<number, SchemaRecord>> {
    const all = await guard(this.redis.hgetall(this.k.schemaRecords));
    return new Map(Object.entries(all).map(([id, raw]) => [Number(id), decodeRecord(raw)!]));
  }

  async idOf(digest: string): Promise<number | null> {
    const v = await guard(this.redis.hget(this.k.schemaDigests, digest));
    return v === null ? null : Number(v);
  }

  async subjects(): Promise<Map<string, VersionEntry[]>> {
    const all = await guard(this.redis.hgetall(this.k.schemaSubjects));
    return new Map(Object.entries(all).map(([s, raw]) => [s, decodeVersions(raw)] as const).filter(([, vs]) => vs.length > 0));
  }

  async versions(subject: string): Promise<VersionEntry[]> {
    return decodeVersions(await guard(this.redis.hget(this.k.schemaSubjects, subject)));
  }

  async register(w: RegisterWrite): Promise<RegisterOutcome> {
    const r = await guard(this.redis.schemaRegister(this.k.schemaNextId, this.k.schemaRecords, this.k.schemaDigests, this.k.schemaSubjects,
      w.subject, w.digest, JSON.stringify(w.record), String(w.expectedLatest), w.id === undefined ? '' : String(w.id), w.version === undefined ? '' : String(w.version)));
    switch (r[0]) {
      case 'OK': return { ok: true, id: Number(r[1]), version: Number(r[2]), created: Number(r[3]) === 1 };
      case 'CHANGED': return { ok: false, reason: 'changed' };
      case 'ID_TAKEN': return { ok: false, reason: 'id-taken' };
      case 'VERSION_TAKEN': return { ok: false, reason: 'version-taken' };
      default: throw new Error(`schema-register.lua answered ${JSON.stringify(r)}`);
    }
  }

  async replaceVersions(subject: string, expected: readonly VersionEntry[], next: readonly VersionEntry[]): Promise<boolean> {
    return (await guard(this.redis.schemaVersions(this.k.schemaSubjects, subject, encodeVersions(expected), encodeVersions(next)))) === 1;
  }

  async compatibility(subject: string | null): Promise<Compatibility | null> {
    const v = await guard(subject === null ? this.redis.hget(this.k.schemaGlobal, GLOBAL.compatibility) : this.redis.hget(this.k.schemaConfig, subject));
    return isCompatibility(v) ? v : null;
  }

  async setCompatibility(subject: string | null, level: Compatibility | null): Promise<void> {
    await this.setField(subject === null ? this.k.schemaGlobal : this.k.schemaConfig, subject ?? GLOBAL.compatibility, level);
  }

  async mode(subject: string | null): Promise<Mode | null> {
    const v = await guard(subject === null ? this.redis.hget(this.k.schemaGlobal, GLOBAL.mode) : this.redis.hget(this.k.schemaModes, subject));
    return isMode(v) ? v : null;
  }

  async setMode(subject: string | null, mode: Mode | null): Promise<void> {
    await this.setField(subject === null ? this.k.schemaGlobal : this.k.schemaModes, subject ?? GLOBAL.mode, mode);
  }

  private async setField(key: string, field: string, value: string | null): Promise<void> {
    await guard(value === null ? this.redis.hdel(key, field) : this.redis.hset(key, field, value));
  }
}
