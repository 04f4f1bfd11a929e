// A real Apache Kafka 4.x broker (single KRaft node, broker+controller) from the
// jars in .cache/java/lib. Used as the reference target for interop tests
// (RUNNEL_TEST_TARGET=kafka) and for benchmarks.
//
// Gotchas (Kafka 4.x):
//  - ZooKeeper is gone: the storage dir must be formatted first with
//    `kafka.tools.StorageTool format -t <clusterId> -c server.properties`
//    (still the Scala class in kafka_2.13; with a static controller.quorum.voters
//    no --standalone flag is needed).
//  - log4j 1 is gone: logging is log4j2, configured with -Dlog4j2.configurationFile.
//  - log.message.timestamp.after.max.ms defaults to 1 hour: records stamped more
//    than an hour in the future are rejected (INVALID_TIMESTAMP).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureJavaLib, JAVA_CP, javaCds, log4jConfig, runJava } from './java.js';
import { freePort, HOST, spawnManaged, tailFile, waitFor, waitForPort, type ManagedProcess } from './procs.js';

export interface StartKafkaOptions {
  /** Extra server.properties entries (override the defaults). */
  props?: Record<string, string | number | boolean>;
  /** JVM heap, default '1g'. */
  heap?: string;
  startTimeoutMs?: number;
  /** Listeners besides PLAINTEXT (e.g. SSL, SASL_SSL), added to listeners, advertised.listeners and the protocol map; their ssl/sasl settings go in `props`. */
  extraListeners?: Array<{ name: string; protocol: string; port: number }>;
}

export interface KafkaBroker {
  bootstrap: string;
  port: number;
  controllerPort: number;
  dir: string;
  proc: ManagedProcess;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

/**
 * A random Kafka cluster id (base64url of 16 bytes, no padding). Never one that
 * starts with '-': argparse4j would take it for an option.
 */
function randomClusterId(): string {
  for (;;) {
    const id = crypto.randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

export async function startKafka(opts: StartKafkaOptions = {}): Promise<KafkaBroker> {
  ensureJavaLib();
  const port = await freePort();
  const controllerPort = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-kafka-'));
  const logDir = path.join(dir, 'data');
  const extra = opts.extraListeners ?? [];
  const more = (f: (l: { name: string; protocol: string; port: number }) => string): string => extra.map((l) => `,${f(l)}`).join('');
  const props: Record<string, string | number | boolean> = {
    'process.roles': 'broker,controller',
    'node.id': 1,
    'controller.quorum.voters': `1@${HOST}:${controllerPort}`,
    listeners: `PLAINTEXT://${HOST}:${port},CONTROLLER://${HOST}:${controllerPort}${more((l) => `${l.name}://${HOST}:${l.port}`)}`,
    'advertised.listeners': `PLAINTEXT://${HOST}:${port}${more((l) => `${l.name}://${HOST}:${l.port}`)}`,
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'listener.security.protocol.map': `PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT${more((l) => `${l.name}:${l.protocol}`)}`,
    'log.dirs': logDir,
    'num.partitions': 1,
    'default.replication.factor': 1,
    'min.insync.replicas': 1,
    'offsets.topic.replication.factor': 1,
    'offsets.topic.num.partitions': 5,
    'transaction.state.log.replication.factor': 1,
    'transaction.state.log.min.isr': 1,
    'transaction.state.log.num.partitions': 5,
    'share.coordinator.state.topic.replication.factor': 1,
    'share.coordinator.state.topic.min.isr': 1,
    'group.initial.rebalance.delay.ms': 0,
    'auto.create.topics.enable': true,
    'delete.topic.enable': true,
    'num.network.threads': 2,
    'num.io.threads': 4,
    ...opts.props,
  };
  const propsFile = path.join(dir, 'server.properties');
  fs.writeFileSync(propsFile, Object.entries(props).map(([k, v]) => `${k}=${v}`).join('\n') + '\n');

  const fmt = await runJava('kafka.tools.StorageTool', ['format', `--cluster-id=${randomClusterId()}`, '--config', propsFile], {
    timeoutMs: 120_000,
    logLevel: 'WARN',
  });
  if (fmt.code !== 0) {
    throw new Error(`kafka StorageTool format failed (code ${fmt.code}):\n${fmt.stdout}\n${fmt.stderr}`);
  }

  const heap = opts.heap ?? '1g';
  const proc = spawnManaged(`kafka-${port}`, 'java', [
    `-Xmx${heap}`,
    `-Xms${heap === '1g' ? '256m' : heap}`,
    '-XX:+UseG1GC',
    '-XX:MaxGCPauseMillis=20',
    '-Djava.awt.headless=true',
    ...javaCds(true).args,
    `-Dlog4j2.configurationFile=${log4jConfig('INFO')}`,
    '-cp', JAVA_CP,
    'kafka.Kafka', propsFile,
  ]);

  const stop = async (): Promise<void> => {
    await proc.stop(30_000);
    if (process.env.RUNNEL_TEST_KEEP !== '1') fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    const timeoutMs = opts.startTimeoutMs ?? 120_000;
    await waitForPort(port, { proc, timeoutMs });
    // The PLAINTEXT acceptor opens late in startup, but wait for the explicit
    // "started" line so metadata is ready before the first admin call.
    await waitFor('Kafka Server started', () => /Kafka Server started/.test(tailFile(proc.logFile, 200_000)), {
      proc,
      timeoutMs,
      intervalMs: 200,
    });
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    bootstrap: `${HOST}:${port}`,
    port,
    controllerPort,
    dir,
    proc,
    stop,
    async kill() {
      await proc.kill();
    },
  };
}
