// KIP-368 with a real client: with connections.max.reauth.ms the broker
// reports the session lifetime, and the Java producer re-authenticates on its
// open connection before the session ends, so a steady producer keeps working
// past several lifetimes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertOk, runJava } from '../../helpers/java.js';
import { freePort, HOST } from '../../helpers/procs.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';

const PW = 'Re4uth-S3cret-6620';
const LIFETIME_MS = 1500;
let redis: RedisServer;
let broker: RunnelBroker;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-reauth-'));
  redis = await startRedis();
  const port = await freePort();
  broker = await startRunnel({
    redisUrl: redis.url,
    port,
    args: [
      '--set', `listeners=SASL_PLAINTEXT://${HOST}:${port}`,
      '--set', `sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_app="${PW}";`,
      '--set', `connections.max.reauth.ms=${LIFETIME_MS}`,
    ],
  });
}, 60_000);

afterAll(async () => {
  await broker?.stop();
  await redis?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('re-authentication (connections.max.reauth.ms)', () => {
  it('the Java producer re-authenticates on its connection and every record is acknowledged', async () => {
    const props = path.join(dir, 'client.properties');
    fs.writeFileSync(props, [
      `bootstrap.servers=${broker.bootstrap}`,
      'security.protocol=SASL_PLAINTEXT',
      'sasl.mechanism=PLAIN',
      `sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="app" password="${PW}";`,
      '',
    ].join('\n'));
    // 400 records at 100/s: about 4 s, several session lifetimes. The client re-authenticates at its first
    // send after 85-95% of the lifetime; a send every 10 ms keeps that well before the broker's expiry
    // (with sparse sends a re-authentication may arrive after it, and Kafka, like Runnel, then closes).
    const r = assertOk('producer perf', await runJava('org.apache.kafka.tools.ProducerPerformance', [
      '--topic', 'reauth', '--num-records', '400', '--record-size', '100', '--throughput', '100', '--producer.config', props,
    ], { logLevel: 'DEBUG', timeoutMs: 60_000 }));
    expect(r.stdout).toMatch(/^400 records sent,/m);
    expect(r.stderr).toContain(`Finished authentication with session expiration in ${LIFETIME_MS} ms`);
    const reauths = r.stderr.match(/Successfully re-authenticated with/g) ?? [];
    expect(reauths.length).toBeGreaterThanOrEqual(2);
    expect(r.stderr).not.toMatch(/Authentication failed|SaslAuthenticationException/);
  });
});
