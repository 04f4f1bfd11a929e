// A Runnel broker whose one listener is SASL_PLAINTEXT, on its own Redis, with
// a scratch folder for client properties files.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, HOST } from '../../helpers/procs.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';

export interface SaslBroker {
  redis: RedisServer;
  broker: RunnelBroker;
  dir: string;
  /** Writes a Java client properties file for SASL_PLAINTEXT and returns its path. */
  clientProps(name: string, mechanism: string, user: string, password: string): string;
  stop(): Promise<void>;
}

/**
 * `settings`: extra broker settings (key=value), e.g. the JAAS config;
 * `moreListeners`: listeners after the SASL_PLAINTEXT one (e.g. `SASL_SSL://127.0.0.1:<port>`).
 */
export async function startSaslBroker(settings: string[], moreListeners: string[] = []): Promise<SaslBroker> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-sasl-'));
  const redis = await startRedis();
  const port = await freePort();
  const broker = await startRunnel({
    redisUrl: redis.url,
    port,
    args: [`listeners=${[`SASL_PLAINTEXT://${HOST}:${port}`, ...moreListeners].join(',')}`, ...settings].flatMap((s) => ['--set', s]),
  }).catch(async (e: unknown) => { await redis.stop(); throw e; });
  return {
    redis,
    broker,
    dir,
    clientProps(name, mechanism, user, password) {
      const module = mechanism === 'PLAIN' ? 'org.apache.kafka.common.security.plain.PlainLoginModule' : 'org.apache.kafka.common.security.scram.ScramLoginModule';
      const file = path.join(dir, `${name}.properties`);
      fs.writeFileSync(file, [
        `bootstrap.servers=${broker.bootstrap}`,
        'security.protocol=SASL_PLAINTEXT',
        `sasl.mechanism=${mechanism}`,
        `sasl.jaas.config=${module} required username="${user}" password="${password}";`,
        '',
      ].join('\n'));
      return file;
    },
    async stop() {
      try {
        await broker.stop();
      } finally {
        await redis.stop();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
