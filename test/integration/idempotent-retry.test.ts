// A Java idempotent producer whose produce responses are dropped by a proxy
// retries; the log holds every record exactly once, in order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../helpers/runnel.js';
import { startFaultProxy, type FaultProxy } from '../helpers/proxy.js';
import { freePort } from '../helpers/procs.js';
import { denseOffsets, duplicates, idempotentProducer, readTopic } from './support.js';

let redis: RedisServer;
let broker: RunnelBroker;
let proxy: FaultProxy;

beforeAll(async () => {
  redis = await startRedis();
  const brokerPort = await freePort();
  // Clients learn the proxy's address from Metadata, so every request crosses it.
  proxy = await startFaultProxy(brokerPort, { dropEvery: 25, maxDrops: 8 });
  broker = await startRunnel({ redisUrl: redis.url, port: brokerPort, args: ['--advertised-port', String(proxy.port)] });
});

afterAll(async () => {
  await proxy?.close();
  await broker?.stop();
  await redis?.stop();
});

describe('idempotent producer retries', () => {
  it('writes each record once although produce responses are lost', async () => {
    const n = 20_000;
    const bootstrap = `127.0.0.1:${proxy.port}`;
    const { acked } = await idempotentProducer({ bootstrap, topic: 'idem', maxMessages: n, throughput: 10_000 });
    expect(proxy.droppedResponses).toBeGreaterThan(0);
    expect(acked.length).toBe(n);

    const log = await readTopic(bootstrap, 'idem');
    denseOffsets(log);
    expect(duplicates(log.map((r) => r.value))).toEqual([]);
    const stored = new Set(log.map((r) => r.value));
    expect(acked.filter((v) => !stored.has(v))).toEqual([]);
    expect(log.length).toBe(n);
    // one partition, one producer: values appear in send order
    expect(log.map((r) => Number(r.value))).toEqual([...Array(n).keys()]);
  });
});
