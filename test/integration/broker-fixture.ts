// One redis (flavour from RUNNEL_TEST_BACKEND) plus one Runnel broker per test file.
import { afterAll, beforeAll } from 'vitest';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../helpers/runnel.js';

export interface Fixture {
  redis: RedisServer;
  broker: RunnelBroker;
}

export function useBroker(opts: { args?: string[]; env?: Record<string, string> } = {}): Fixture {
  const fx = {} as Fixture;
  beforeAll(async () => {
    fx.redis = await startRedis();
    fx.broker = await startRunnel({ redisUrl: fx.redis.url, args: opts.args, env: opts.env });
  });
  afterAll(async () => {
    await fx.broker?.stop();
    await fx.redis?.stop();
  });
  return fx;
}
