// KIP-368 with a real client: with connections.max.reauth.ms the broker
// reports the session lifetime, and the Java producer re-authenticates on its
// open connection before the session ends, so a steady producer keeps working
// past several lifetimes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertOk, runJava } from '../../helpers/java.js';
import { startSaslBroker, type SaslBroker } from './support.js';

const PW = 'Re4uth-S3cret-6620';
const LIFETIME_MS = 1500;
let sasl: SaslBroker;

beforeAll(async () => {
  sasl = await startSaslBroker([
    `sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_app="${PW}";`,
    `connections.max.reauth.ms=${LIFETIME_MS}`,
  ]);
}, 60_000);

afterAll(async () => {
  await sasl?.stop();
});

describe('re-authentication (connections.max.reauth.ms)', () => {
  it('the Java producer re-authenticates on its connection and every record is acknowledged', async () => {
    const props = sasl.clientProps('app', 'PLAIN', 'app', PW);
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
