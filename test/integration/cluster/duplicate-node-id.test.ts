// Issue 8, one broker per node id: a second broker process started with the
// node.id of a live broker fails to start (non-zero exit, an error naming the
// node id and the live holder), and the live broker is untouched: no lease
// changes hands, it keeps serving produce and consume. A broker restarted
// with the same node id after a SIGKILL starts once its predecessor's
// registration has expired (at most broker.lease.ms).
//
// Kafka refuses a duplicate broker registration the same way (KRaft:
// DUPLICATE_BROKER_REGISTRATION while the old session is alive), but the
// single-node Kafka helper cannot start a second process with the same id
// on its data dir, so the file is skipped with RUNNEL_TEST_TARGET=kafka.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keys } from '../../../common/keys.js';
import { ErrorCode } from '../../../common/errors.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { RUNNEL_CLI, startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { freePort, HOST, spawnManaged, waitFor } from '../../helpers/procs.js';
import { targetKindFromEnv } from '../../helpers/target.js';
import { WireClient } from '../../helpers/wire.js';
import { buildBatch } from '../../helpers/batches.js';
import { readAll, signal, wireCreateTopic, wireMetadata, wireProduce } from '../../helpers/faults.js';

const onKafka = targetKindFromEnv() === 'kafka';
const LEASE_MS = 3000;
const TICK_MS = 500;
const SLOTS = 50; // offsets.topic.num.partitions default
const TOPIC = 'dup';
const keys = new Keys('rn');
const args = ['--node-id', '1', '--set', `broker.lease.ms=${LEASE_MS}`, '--set', `leadership.tick.ms=${TICK_MS}`];

let redis: RedisServer;
let r: Redis;
let a: RunnelBroker;
let c: RunnelBroker | null = null;

beforeAll(async () => {
  if (onKafka) return;
  redis = await startRedis();
  r = new Redis(redis.url);
  a = await startRunnel({ redisUrl: redis.url, args });
});

afterAll(async () => {
  r?.disconnect();
  try { if (a) process.kill(a.proc().pid, 'SIGCONT'); } catch { /* gone */ }
  await a?.stop().catch(() => undefined);
  await c?.stop().catch(() => undefined);
  await redis?.stop();
});

/** Every lease value (partition leaders, coordinator slots), slot epochs and the node-id registration, as one comparable snapshot. */
async function leaseState(): Promise<Record<string, string | null>> {
  const names = [
    ...[0, 1].map((p) => keys.leader({ topic: TOPIC, partition: p })),
    ...Array.from({ length: SLOTS }, (_, s) => keys.coordinatorLease(s)),
    ...Array.from({ length: SLOTS }, (_, s) => keys.coordinatorEpoch(s)),
  ];
  const values = await r.mget(...names);
  const out: Record<string, string | null> = Object.fromEntries(names.map((n, i) => [n, values[i] ?? null]));
  const reg = await r.hget(keys.brokers, '1');
  out.registeredInstance = reg === null ? null : (JSON.parse(reg) as { instance: string }).instance;
  return out;
}

async function produce(port: number, partition: number, value: string): Promise<number> {
  const c = await WireClient.connect(port);
  try {
    return (await wireProduce(c, TOPIC, partition, buildBatch([{ key: null, value: Buffer.from(value) }]), -1)).errorCode;
  } finally {
    c.close();
  }
}

describe.skipIf(onKafka)('one broker per node id', () => {
  it('a second broker with a live node.id exits non-zero with a clear error; the first keeps its leases and keeps serving', async () => {
    expect(await wireCreateTopic(a.port, TOPIC, 2)).toBe(0);
    await waitFor('both partitions led by node 1', async () => (await wireMetadata(a.port, TOPIC)).partitions.every((p) => p.leaderId === 1), { timeoutMs: 15_000 });
    await waitFor('every coordinator slot leased', async () => {
      const s = await leaseState();
      return Array.from({ length: SLOTS }, (_, slot) => s[keys.coordinatorLease(slot)]).every((v) => v !== null && v !== undefined);
    }, { timeoutMs: 15_000 });
    for (const p of [0, 1]) expect(await produce(a.port, p, `before-${p}`)).toBe(ErrorCode.NONE);
    const before = await leaseState();

    // Watch every lease while the duplicate runs: none may change, even for a moment.
    const changes: string[] = [];
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const now = await leaseState();
        for (const [k, v] of Object.entries(now)) if (v !== before[k]) changes.push(`${k}: ${before[k]} -> ${v}`);
        await new Promise((res) => setTimeout(res, 50));
      }
    })();

    const port = await freePort();
    const started = Date.now();
    const b = spawnManaged('runnel-dup', process.execPath, [RUNNEL_CLI, 'broker', '--host', HOST, '--port', String(port), '--redis', redis.url, ...args]);
    const exit = await Promise.race([b.exited, new Promise<null>((res) => setTimeout(() => res(null), 20_000))]);
    const tookMs = Date.now() - started;
    watching = false;
    await watcher;
    if (exit === null) await b.kill();
    expect(exit, `duplicate broker still running after 20 s; log:\n${b.tail()}`).not.toBeNull();
    expect(exit!.code).not.toBe(0);
    expect(exit!.code).not.toBeNull(); // exited on its own, not killed by a signal
    expect(b.tail()).toMatch(/node\.id 1 is in use: another live broker \(instance 1:[0-9a-f]+\) holds it/);
    console.log(`[duplicate-node-id] second broker exited with code ${exit!.code} after ${tookMs} ms (lease ${LEASE_MS} ms, tick ${TICK_MS} ms)`);

    expect(changes).toEqual([]);
    expect(await leaseState()).toEqual(before);
    // Registration and leases name the process instance, not just the node id.
    expect(before.registeredInstance).toMatch(/^1:[0-9a-f]+$/);
    expect(before[keys.leader({ topic: TOPIC, partition: 0 })]).toBe(before.registeredInstance);

    // The first broker still serves: produce and consume.
    for (const p of [0, 1]) expect(await produce(a.port, p, `after-${p}`)).toBe(ErrorCode.NONE);
    const values = (await readAll(a.bootstrap, TOPIC)).map((x) => x.value).sort();
    expect(values).toEqual(['after-0', 'after-1', 'before-0', 'before-1']);
  });

  it('a broker restarted with the same node.id after SIGKILL starts once the old registration expires', async () => {
    const old = await leaseState();
    const killedAt = Date.now();
    await a.kill();
    await a.restart(); // same port, same node.id, new process
    const startedMs = Date.now() - killedAt;
    console.log(`[duplicate-node-id] restart after SIGKILL serving after ${startedMs} ms (lease ${LEASE_MS} ms)`);
    const now = await leaseState();
    expect(now.registeredInstance).not.toBe(old.registeredInstance);
    expect(now.registeredInstance).toMatch(/^1:[0-9a-f]+$/);
    await waitFor('partitions led by the new process', async () => {
      const s = await leaseState();
      return [0, 1].every((p) => s[keys.leader({ topic: TOPIC, partition: p })] === s.registeredInstance);
    }, { timeoutMs: 15_000 });
    await waitFor('produce accepted by the restarted broker', async () => (await produce(a.port, 0, 'restarted')) === ErrorCode.NONE, { timeoutMs: 15_000, intervalMs: 200 });
    expect((await readAll(a.bootstrap, TOPIC)).map((x) => x.value)).toContain('restarted');
  });

  it('a broker paused past its lease whose node.id was taken meanwhile stops on resume (exit 1) and leaves the new one alone', async () => {
    const old = await leaseState();
    signal(a.proc(), 'SIGSTOP');
    await new Promise((res) => setTimeout(res, LEASE_MS + 2 * TICK_MS));
    // The paused process no longer renews: a new process may take node id 1.
    c = await startRunnel({ redisUrl: redis.url, args });
    const taken = await leaseState();
    expect(taken.registeredInstance).not.toBe(old.registeredInstance);
    const resumedAt = Date.now();
    signal(a.proc(), 'SIGCONT');
    const exit = await Promise.race([a.proc().exited, new Promise<null>((res) => setTimeout(() => res(null), 15_000))]);
    expect(exit, `paused broker still running 15 s after SIGCONT; log:\n${a.proc().tail()}`).not.toBeNull();
    expect(exit!.code).toBe(1);
    expect(a.proc().tail()).toMatch(/node\.id 1 was taken over by broker instance 1:[0-9a-f]+; this broker stopped/);
    console.log(`[duplicate-node-id] superseded broker exited ${Date.now() - resumedAt} ms after SIGCONT`);
    // The new process keeps its registration and serves.
    expect((await leaseState()).registeredInstance).toBe(taken.registeredInstance);
    await waitFor('produce accepted by the new process', async () => (await produce(c!.port, 1, 'after-takeover')) === ErrorCode.NONE, { timeoutMs: 15_000, intervalMs: 200 });
    const s = await leaseState();
    expect([0, 1].map((p) => s[keys.leader({ topic: TOPIC, partition: p })])).toEqual([taken.registeredInstance, taken.registeredInstance]);
  });
});
