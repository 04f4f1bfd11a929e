// Restarting the broker (SIGKILL) and, separately, redis-server (graceful,
// AOF) while a Java idempotent producer runs loses no acknowledged record,
// duplicates none, and keeps offsets dense.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../helpers/runnel.js';
import { sleep } from '../helpers/procs.js';
import { denseOffsets, duplicates, idempotentProducer, readTopic } from './support.js';

let redis: RedisServer;
let broker: RunnelBroker;

beforeAll(async () => {
  redis = await startRedis({ appendonly: true });
  broker = await startRunnel({ redisUrl: redis.url });
});

afterAll(async () => {
  await broker?.stop();
  await redis?.stop();
});

async function produceThrough(topic: string, disrupt: () => Promise<void>): Promise<string[]> {
  const n = 15_000;
  const run = idempotentProducer({ bootstrap: broker.bootstrap, topic, maxMessages: n, throughput: 3_000 });
  await sleep(2_000);
  await disrupt();
  const { acked } = await run;
  expect(acked.length).toBe(n);
  return acked;
}

async function checkLog(topic: string, acked: string[]): Promise<void> {
  const log = await readTopic(broker.bootstrap, topic);
  denseOffsets(log);
  expect(duplicates(log.map((r) => r.value))).toEqual([]);
  const stored = new Set(log.map((r) => r.value));
  expect(acked.filter((v) => !stored.has(v))).toEqual([]);
}

describe('restarts', () => {
  it('broker SIGKILL and restart mid-stream', async () => {
    const acked = await produceThrough('restart-broker', async () => {
      await broker.kill();
      await sleep(500);
      await broker.restart();
    });
    await checkLog('restart-broker', acked);
  });

  it('redis-server restart (AOF) mid-stream, without restarting the broker', async () => {
    const acked = await produceThrough('restart-redis', async () => {
      await redis.restart();
    });
    await checkLog('restart-redis', acked);
    // offsets continue densely after both restarts
    const more = await produceThrough('restart-redis', async () => {});
    const log = await readTopic(broker.bootstrap, 'restart-redis');
    expect(denseOffsets(log).get(0)).toBe(acked.length + more.length);
  });
});
