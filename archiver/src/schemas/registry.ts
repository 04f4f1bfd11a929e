// Read-only access to the broker's Schema Registry store in Redis (docs/redis-keys.md,
// "Schema Registry keys"; written by broker/src/redis/redis-schema-store.ts):
//   <prefix>:r:{schemas}:ids       hash  id -> {"schemaType", "schema", "references": [{name, subject, version}]}
//   <prefix>:r:{schemas}:subjects  hash  subject -> [[version, id, deleted], ...]
// A registry id always names the same schema (ids are never reused or removed),
// so a schema found is cached for the life of the process: the archiver asks
// Redis once per id, not per record. An id not found is asked again at most
// every `missRetryMs` (it may be registered later).
import type { Keys } from '../keys.js';
import type { RedisClient } from '../../../common/redis/connect.js';
import type { SchemaText } from './typed.js';

interface StoredRecord {
  schemaType?: string;
  schema?: string;
  references?: { name: string; subject: string; version: number }[];
}

/** References are followed this deep at most (a cycle is refused by the registry; this bounds a corrupt store). */
const MAX_REF_DEPTH = 16;

export class SchemaLookupError extends Error {
  /** how its message starts (a worker's job error carries only the text) */
  static readonly PREFIX = 'schema registry lookup failed: ';
}
/** A schema whose references cannot be resolved (e.g. a referenced version hard-deleted): its records get decode_error. */
class RefError extends Error {}

export class RegistryReader {
  private readonly found = new Map<number, SchemaText>();
  private readonly missing = new Map<number, number>();
  /** Redis round trips made (tests: the cache works) */
  redisCalls = 0;

  constructor(private readonly redis: () => RedisClient, private readonly keys: Keys, private readonly missRetryMs = 5000, private readonly latestTtlMs = 1000) {}

  /** The schemas of `ids` (null: not in the registry); throws SchemaLookupError when Redis fails. */
  async lookup(ids: number[]): Promise<Record<number, SchemaText | null>> {
    const out: Record<number, SchemaText | null> = {};
    const ask: number[] = [];
    const now = Date.now();
    for (const id of ids) {
      const f = this.found.get(id);
      if (f) out[id] = f;
      else if ((this.missing.get(id) ?? 0) > now) out[id] = null; // a reference error is then reported as an unknown id until retried
      else ask.push(id);
    }
    if (!ask.length) return out;
    try {
      const raws = await this.records(ask);
      for (const [i, id] of ask.entries()) {
        const r = raws[i];
        if (!r) {
          this.missing.set(id, now + this.missRetryMs);
          out[id] = null;
          continue;
        }
        const s: SchemaText = { schemaType: r.schemaType ?? 'AVRO', schema: String(r.schema), refs: [] };
        try {
          const refs = await this.refTexts(r, 0);
          s.refs = refs.map((x) => x.schema);
          s.refNames = refs.map((x) => x.name);
        } catch (e) {
          if (!(e instanceof RefError)) throw e;
          // not kept: asked again after missRetryMs, like an unknown id
          this.missing.set(id, now + this.missRetryMs);
          out[id] = { ...s, error: `schema id ${id}: ${e.message}` };
          continue;
        }
        this.found.set(id, s);
        this.missing.delete(id);
        out[id] = s;
      }
    } catch (e) {
      throw new SchemaLookupError(`${SchemaLookupError.PREFIX}${(e as Error).message}`);
    }
    return out;
  }

  private readonly latest = new Map<string, { id: number | null; at: number }>();

  /**
   * The id of the subject's latest version that is not soft-deleted, or null
   * (no such subject); read again after `latestTtlMs` (a new version may come).
   * Throws SchemaLookupError when Redis fails.
   */
  async latestId(subject: string): Promise<number | null> {
    const now = Date.now();
    const c = this.latest.get(subject);
    if (c && now - c.at < this.latestTtlMs) return c.id;
    let id: number | null = null;
    try {
      this.redisCalls++;
      const raw = await this.redis().hget(this.keys.schemaSubjects(), subject);
      const list = raw ? (JSON.parse(raw) as unknown) : [];
      const live = (Array.isArray(list) ? (list as number[][]) : []).filter((e) => e[2] !== 1);
      id = live.length ? live[live.length - 1]![1]! : null;
    } catch (e) {
      throw new SchemaLookupError(`${SchemaLookupError.PREFIX}${(e as Error).message}`);
    }
    this.latest.set(subject, { id, at: now });
    return id;
  }

  private async records(ids: number[]): Promise<(StoredRecord | null)[]> {
    this.redisCalls++;
    const raws = await this.redis().hmget(this.keys.schemaRecords(), ...ids.map(String));
    return raws.map((raw) => (raw ? (JSON.parse(raw) as StoredRecord) : null));
  }

  /** The names and texts of a schema's references, each after its own references (the order a parser must see them). */
  private async refTexts(r: StoredRecord, depth: number): Promise<{ name: string; schema: string }[]> {
    if (!r.references?.length) return [];
    if (depth >= MAX_REF_DEPTH) throw new RefError(`schema references deeper than ${MAX_REF_DEPTH}`);
    const out: { name: string; schema: string }[] = [];
    for (const ref of r.references) {
      this.redisCalls++;
      const raw = await this.redis().hget(this.keys.schemaSubjects(), ref.subject);
      const versions = raw ? (JSON.parse(raw) as unknown) : [];
      const list = Array.isArray(versions) ? (versions as number[][]) : [];
      const v = ref.version === -1 ? list[list.length - 1] : list.find((e) => e[0] === ref.version);
      if (!v) throw new RefError(`reference ${ref.name}: subject ${ref.subject} version ${ref.version} not found`);
      const [rec] = await this.records([v[1]!]);
      if (!rec) throw new RefError(`reference ${ref.name}: schema id ${v[1]} not found`);
      out.push(...(await this.refTexts(rec, depth + 1)), { name: ref.name, schema: String(rec.schema) });
    }
    return out;
  }
}
