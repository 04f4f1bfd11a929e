// The archiver on a real Redis Cluster (3 primaries, 3 replicas, started here
// whatever RUNNEL_TEST_BACKEND says; its flavor, redis or valkey, follows it).
// A topic's partitions carry placement salts that put them on different
// primaries; two archiver processes split them, one is SIGKILLed mid-way and
// the other takes its partitions over; then a primary holding partitions is
// SIGKILLed and its replica promoted. Every record must land in the Delta
// table exactly once, and every key the archiver wrote must carry the
// partition's salted hash tag. Last, a topic created and written through the
// broker (whose placement chooses the salts) is archived the same way.
import fs from 'node:fs';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateTopics } from '../../../broker/src/protocol/messages/create-topics.js';
import { Produce } from '../../../broker/src/protocol/messages/produce.js';
import { partitionTag } from '../../../common/keys.js';
import { buildBatch } from '../../helpers/batches.js';
import { startRunnel } from '../../helpers/runnel.js';
import { WireClient } from '../../helpers/wire.js';
import {
  archiverEnv,
  checkTable,
  createTopic,
  ensureBuilt,
  leaseKey,
  metaKey,
  newProducer,
  produce,
  readDelta,
  redisKey,
  slotOwners,
  spawnArchiver,
  startClusterRedis,
  tagOf,
  tmpDir,
  waitArchived,
  waitFor,
  type ArchiverProc,
  type Producer,
  type RedisHandle,
} from './helpers.js';

let redis: RedisHandle;
const dirs: string[] = [];

beforeAll(async () => {
  await ensureBuilt();
  redis = await startClusterRedis();
});

afterAll(async () => {
  await redis?.stop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** Every key under `rn:p:{<topic>/` on every primary. */
async function partitionKeys(topic: string): Promise<string[]> {
  const client = redis.client as Cluster;
  const out: string[] = [];
  for (const node of client.nodes('master')) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `rn:p:{${topic}/*`, 'COUNT', 1000);
      out.push(...keys);
      cursor = next;
    } while (cursor !== '0');
  }
  return out.sort();
}

/** Ports of the primaries that serve slots (CLUSTER SLOTS, through the test's cluster client). */
async function slotServingPorts(): Promise<number[]> {
  const ownerOf = (await slotOwners(redis.client))!;
  const owners = new Set<string>();
  for (let s = 0; s < 16384; s++) owners.add(ownerOf(s));
  return [...owners].map((o) => Number(o.slice(o.lastIndexOf(':') + 1))).sort();
}

/** Makes the replicas hold what the primaries have (WAIT on every primary), so a killed primary loses nothing. */
async function replicate() {
  const c = redis.cluster!;
  for (const port of await slotServingPorts()) {
    const n = c.nodes.find((x) => x.port === port)!;
    const r = await n.command(['WAIT', '1', '5000']);
    expect(r.startsWith(':1')).toBe(true);
  }
}

describe('archiver on Redis Cluster', () => {
  it('partitions on different primaries: two archivers, one killed, then a primary failover; every record exactly once', async () => {
    const c = redis.cluster!;
    const topic = 'spread';
    const parts = 6;
    const legacy = 'legacy'; // a record without placement (written before placement existed): every salt 0
    const dir = tmpDir('cluster-lake');
    dirs.push(dir);
    await createTopic(redis.client, topic, parts);
    await createTopic(redis.client, legacy, 2, { placement: null });

    // the salts spread the partitions: every primary holds some (the task asks for at least 2)
    const owners = new Map<number, number>();
    for (let p = 0; p < parts; p++) owners.set(p, (await c.slotOwner(c.keySlot(redisKey(topic, p)))).port);
    expect(new Set(owners.values()).size).toBeGreaterThanOrEqual(2);
    expect(new Set(owners.values()).size).toBe((await slotServingPorts()).length);
    expect([...Array(parts).keys()].some((p) => tagOf(topic, p) !== `{${topic}/${p}}`)).toBe(true);

    const prod = newProducer();
    const legacyProd = newProducer();
    const more = async (batches: number) => {
      for (let p = 0; p < parts; p++) await produce(redis.client, prod, topic, p, batches, 5);
      for (let p = 0; p < 2; p++) await produce(redis.client, legacyProd, legacy, p, batches, 3);
    };
    await more(12);

    const env = (id: string) =>
      archiverEnv({
        redisUrl: redis.url,
        lake: `file://${dir}`,
        extra: { RUNNEL_ARCHIVER_ID: id, RUNNEL_ARCHIVER_TARGET_FILE_BYTES: '8000', RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '200', RUNNEL_ARCHIVER_CHECKPOINT_INTERVAL: '5' },
      });
    const procs: ArchiverProc[] = [];
    const start = (id: string) => {
      const a = spawnArchiver(env(id));
      procs.push(a);
      return a;
    };
    try {
      const a = start('arch-a');
      const b = start('arch-b');
      // both hold leases: the partitions are split between them
      await waitFor(
        async () => {
          const holders = await Promise.all([...Array(parts).keys()].map((p) => redis.client.get(leaseKey(topic, p))));
          return holders.includes('arch-a') && holders.includes('arch-b');
        },
        30_000,
        'both archivers holding leases',
      );
      expect(a.log.some((l) => l.includes('"mode":"cluster"'))).toBe(true);
      await waitArchived(redis.client, topic, prod, 60_000);

      // one archiver dies without flushing; the other adopts its partitions after the lease TTL
      await more(6);
      await a.kill('SIGKILL');
      await more(6);
      await waitArchived(redis.client, topic, prod, 60_000);
      await waitArchived(redis.client, legacy, legacyProd, 60_000);
      expect(await Promise.all([...Array(parts).keys()].map((p) => redis.client.get(leaseKey(topic, p))))).toEqual(Array(parts).fill('arch-b'));

      // a primary that holds partitions dies; its replica takes over; archiving goes on
      await replicate();
      const victim = await c.slotOwner(c.keySlot(redisKey(topic, 0)));
      await victim.kill();
      await c.waitPromoted(victim);
      await waitFor(async () => (await redis.client.ping()) === 'PONG', 10_000, 'test client after failover');
      await more(6);
      await waitArchived(redis.client, topic, prod, 90_000);
      await waitArchived(redis.client, legacy, legacyProd, 60_000);
      expect(b.log.some((l) => /"level":"error"/.test(l))).toBe(false);
      await b.kill('SIGTERM');
    } finally {
      for (const p of procs) await p.kill('SIGKILL');
    }

    const check = async (name: string, n: number, pr: Producer) => {
      const read = await readDelta(`file://${dir}/${name}`, { appIds: [...Array(n).keys()].map((p) => `runnel/${name}/${p}`) });
      checkTable(read, name, n, pr);
    };
    await check(topic, parts, prod);
    await check(legacy, 2, legacyProd);

    // every key of these topics carries its partition's tag (salted or not): the archiver never guessed one
    for (const [name, n] of [
      [topic, parts],
      [legacy, 2],
    ] as const) {
      const allowed = new Set([...Array(n).keys()].map((p) => tagOf(name, p)));
      const keys = await partitionKeys(name);
      expect(keys.filter((k) => !allowed.has(k.slice('rn:p:'.length, k.indexOf('}') + 1)))).toEqual([]);
      for (let p = 0; p < n; p++) expect(keys).toContain(metaKey(name, p));
    }
  });

  it('a topic the broker created and placed (6 partitions) is archived exactly once', async () => {
    const c = redis.cluster!;
    const topic = 'via-broker';
    const parts = 6;
    const dir = tmpDir('cluster-lake-broker');
    dirs.push(dir);
    // its own key prefix: the broker refuses a prefix holding keys it did not write (the first test's)
    const prefix = 'rb';
    const broker = await startRunnel({ redisUrl: redis.url, args: ['--set', `key.prefix=${prefix}`] });
    const expected = new Map<string, string>(); // partition/offset -> value
    let a: ArchiverProc | null = null;
    try {
      const w = await WireClient.connect(broker.port);
      const created = await w.request(CreateTopics, 7, {
        topics: [{ name: topic, numPartitions: parts, replicationFactor: 1, assignments: [], configs: [] }],
        timeoutMs: 10_000,
      });
      expect(created.topics[0].errorCode).toBe(0);
      const produceRound = async (round: number) => {
        for (let p = 0; p < parts; p++) {
          const values = Array.from({ length: 4 }, (_, i) => `r${round}-p${p}-${i}`);
          const r = await w.request(Produce, 9, {
            transactionalId: null,
            acks: -1,
            timeoutMs: 10_000,
            topicData: [{ name: topic, partitionData: [{ index: p, records: buildBatch(values.map((v) => ({ key: null, value: Buffer.from(v) }))) }] }],
          });
          const pr = r.responses[0].partitionResponses[0];
          expect(pr.errorCode).toBe(0);
          values.forEach((v, i) => expected.set(`${p}/${Number(pr.baseOffset) + i}`, Buffer.from(v).toString('base64')));
        }
      };
      await produceRound(0);

      // the broker recorded salts that put the partitions on more than one primary
      const rec = JSON.parse((await redis.client.hget(`${prefix}:topics`, topic))!) as { placement?: number[] };
      expect(rec.placement).toHaveLength(parts);
      const tag = (p: number) => partitionTag(topic, p, rec.placement![p]!);
      const owners = new Set<number>();
      for (let p = 0; p < parts; p++) owners.add((await c.slotOwner(c.keySlot(`${prefix}:p:${tag(p)}:log`))).port);
      expect(owners.size).toBeGreaterThanOrEqual(2);

      a = spawnArchiver(
        archiverEnv({ redisUrl: redis.url, lake: `file://${dir}`, extra: { RUNNEL_KEY_PREFIX: prefix, RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '200' } }),
      );
      await produceRound(1);
      const last = new Map<number, number>();
      for (const k of expected.keys()) {
        const [p, o] = k.split('/').map(Number) as [number, number];
        last.set(p, Math.max(last.get(p) ?? -1, o));
      }
      await waitFor(
        async () => {
          for (let p = 0; p < parts; p++) if (Number((await redis.client.hget(`${prefix}:p:${tag(p)}:meta`, 'archived')) ?? -1) < last.get(p)!) return false;
          return true;
        },
        60_000,
        'archived watermarks of the broker-placed topic',
      );
      w.close();
    } finally {
      await a?.kill('SIGTERM');
      await broker.stop();
    }
    const read = await readDelta(`file://${dir}/${topic}`);
    const got = read.rows.map((r) => `${r[0]}/${r[1]}`);
    expect(got.length).toBe(new Set(got).size); // no duplicate
    expect(new Map(read.rows.map((r) => [`${r[0]}/${r[1]}`, r[5]]))).toEqual(expected);
  });
});
