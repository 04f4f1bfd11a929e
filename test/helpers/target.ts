// The broker under test, chosen by env RUNNEL_TEST_TARGET:
//   runnel (default)  Redis/Valkey (RUNNEL_TEST_BACKEND) + the Runnel broker
//   kafka             a real Apache Kafka 4.x KRaft node (reference behaviour)
// Every interop test talks to `target.bootstrap` and so runs against either.
import { startKafka, type KafkaBroker } from './kafka.js';
import { startRedis, type RedisServer, type StartRedisOptions } from './redis.js';
import { startRunnel, type RunnelBroker } from './runnel.js';

export type TargetKind = 'runnel' | 'kafka';

export function targetKindFromEnv(): TargetKind {
  const v = (process.env.RUNNEL_TEST_TARGET ?? 'runnel').trim().toLowerCase();
  if (v === 'runnel' || v === 'kafka') return v;
  throw new Error(`RUNNEL_TEST_TARGET must be 'runnel' or 'kafka', got '${v}'`);
}

/**
 * Consumer groups (JoinGroup/SyncGroup/OffsetCommit...) work on both targets,
 * so group-dependent tests run by default; RUNNEL_GROUPS=0 forces the
 * group-free paths (RUNNEL_GROUPS=1 is accepted for old scripts).
 */
export function groupsEnabled(_kind: TargetKind = targetKindFromEnv()): boolean {
  return process.env.RUNNEL_GROUPS !== '0';
}

export interface Target {
  kind: TargetKind;
  bootstrap: string;
  /** Only for kind 'runnel'. */
  redis?: RedisServer;
  runnel?: RunnelBroker;
  /** Only for kind 'kafka'. */
  kafka?: KafkaBroker;
  stop(): Promise<void>;
}

export interface StartTargetOptions {
  kind?: TargetKind;
  redis?: StartRedisOptions;
  runnel?: { env?: Record<string, string>; args?: string[] };
  kafka?: { props?: Record<string, string | number | boolean> };
}

export async function startTarget(opts: StartTargetOptions = {}): Promise<Target> {
  const kind = opts.kind ?? targetKindFromEnv();
  if (kind === 'kafka') {
    const kafka = await startKafka({ props: opts.kafka?.props });
    return { kind, bootstrap: kafka.bootstrap, kafka, stop: () => kafka.stop() };
  }
  const redis = await startRedis(opts.redis);
  let runnel: RunnelBroker;
  try {
    runnel = await startRunnel({ redisUrl: redis.url, env: opts.runnel?.env, args: opts.runnel?.args });
  } catch (err) {
    await redis.stop();
    throw err;
  }
  return {
    kind,
    bootstrap: runnel.bootstrap,
    redis,
    runnel,
    async stop() {
      try {
        await runnel.stop();
      } finally {
        await redis.stop();
      }
    },
  };
}
