// Kafka Connect in distributed mode, unmodified (issue 10): the worker creates
// its own config/offset/status topics (cleanup.policy=compact) on the target,
// and a FileStreamSource -> topic -> FileStreamSink pipeline, set up through
// the REST API, copies every line of a file, in order, including lines
// appended while it runs.
// Runs against RUNNEL_TEST_TARGET (Runnel by default, or Apache Kafka).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTopic, describeTopic } from '../../helpers/java.js';
import { freePort, HOST, waitFor, type ManagedProcess } from '../../helpers/procs.js';
import { startTarget, type Target } from '../../helpers/target.js';
import { compileAppClasses, spawnJavaApp, unlessDied } from './support.js';

const TOPIC = 'connect-lines';
const INTERNAL = { config: 'connect-configs', offset: 'connect-offsets', status: 'connect-status' };

let target: Target;
let worker: ManagedProcess | undefined;
let rest: string;
let classes: string;
let workerProps: string;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-connect-'));
const sourceFile = path.join(dir, 'source.txt');
const sinkFile = path.join(dir, 'sink.txt');

beforeAll(async () => {
  [target, classes] = await Promise.all([
    startTarget({
      runnel: { env: { RUNNEL_LOG_CLEANER_BACKOFF_MS: '500' }, args: ['--set', 'group.initial.rebalance.delay.ms=0'] },
    }),
    compileAppClasses(),
  ]);
  // One partition: FileStreamSource writes unkeyed records, so order across
  // the whole file only holds within a single partition.
  await createTopic(target.bootstrap, TOPIC, 1);

  const port = await freePort();
  rest = `http://${HOST}:${port}`;
  const props = {
    'bootstrap.servers': target.bootstrap,
    'group.id': 'connect-cluster',
    'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'config.storage.topic': INTERNAL.config,
    'offset.storage.topic': INTERNAL.offset,
    'status.storage.topic': INTERNAL.status,
    'config.storage.replication.factor': 1,
    'offset.storage.replication.factor': 1,
    'status.storage.replication.factor': 1,
    'offset.storage.partitions': 2,
    'status.storage.partitions': 1,
    'offset.flush.interval.ms': 1000,
    listeners: rest,
    'rest.advertised.host.name': HOST,
    'rest.advertised.port': port,
    // Short test timings: the broker minimum session timeout, and no delay
    // before reassigning the tasks of a departed worker.
    'session.timeout.ms': 6000,
    'heartbeat.interval.ms': 1000,
    'scheduled.rebalance.max.delay.ms': 0,
    'consumer.session.timeout.ms': 6000,
    'consumer.heartbeat.interval.ms': 1000,
  };
  workerProps = path.join(dir, 'worker.properties');
  fs.writeFileSync(workerProps, Object.entries(props).map(([k, v]) => `${k}=${v}`).join('\n') + '\n');
  await startWorker();
});

async function startWorker(): Promise<void> {
  worker = spawnJavaApp('connect-distributed', 'org.apache.kafka.connect.cli.ConnectDistributed', [workerProps], {
    classpath: [classes],
    jvmArgs: ['-Xmx512m'],
    logLevel: 'INFO',
  });
  await waitFor('Connect REST API', async () => (await fetch(`${rest}/connectors`)).ok, { proc: worker, timeoutMs: 60_000, intervalMs: 300 });
}

afterAll(async () => {
  await worker?.stop(20_000);
  await target?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function createConnector(name: string, config: Record<string, string>): Promise<void> {
  const res = await fetch(`${rest}/connectors`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, config }),
  });
  expect(res.status, `POST /connectors ${name}: ${await res.clone().text()}`).toBe(201);
}

async function connectorRunning(name: string): Promise<boolean> {
  const res = await fetch(`${rest}/connectors/${name}/status`);
  if (!res.ok) return false;
  const s = (await res.json()) as { connector: { state: string }; tasks: { state: string; trace?: string }[] };
  const failed = s.tasks.find((t) => t.state === 'FAILED');
  if (failed || s.connector.state === 'FAILED') throw new Error(`connector ${name} failed: ${JSON.stringify(s)}`);
  return s.connector.state === 'RUNNING' && s.tasks.length > 0 && s.tasks.every((t) => t.state === 'RUNNING');
}

const lines = (from: number, n: number): string[] => Array.from({ length: n }, (_, i) => `line ${from + i} ${'x'.repeat((from + i) % 37)}`);

function sinkLines(): string[] {
  if (!fs.existsSync(sinkFile)) return [];
  return fs.readFileSync(sinkFile, 'utf8').split('\n').filter(Boolean);
}

async function bothRunning(): Promise<void> {
  await waitFor('both connectors RUNNING', async () => (await connectorRunning('file-source')) && (await connectorRunning('file-sink')), {
    proc: worker,
    timeoutMs: 45_000,
    intervalMs: 300,
  });
}

/** Waits for the sink file to hold at least `expected.length` lines, then compares exactly. */
async function expectSink(expected: string[]): Promise<void> {
  await waitFor('lines in the sink file', () => sinkLines().length >= expected.length, { proc: worker, timeoutMs: 45_000, intervalMs: 300 })
    .catch(unlessDied(worker));
  expect(sinkLines(), `worker log ${worker?.logFile}`).toEqual(expected);
}

describe(`Kafka Connect distributed, FileStream source and sink (${process.env.RUNNEL_TEST_TARGET ?? 'runnel'})`, () => {
  it('creates its internal topics compacted', async () => {
    for (const topic of Object.values(INTERNAL)) {
      const d = await describeTopic(target.bootstrap, topic);
      expect(d.configs['cleanup.policy'], topic).toBe('compact');
    }
  });

  it('copies every line of a file through a topic into another file, in order', async () => {
    const first = lines(0, 300);
    fs.writeFileSync(sourceFile, first.join('\n') + '\n');
    const t0 = Date.now();
    await createConnector('file-source', {
      'connector.class': 'org.apache.kafka.connect.file.FileStreamSourceConnector',
      'tasks.max': '1',
      file: sourceFile,
      topic: TOPIC,
    });
    await createConnector('file-sink', {
      'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector',
      'tasks.max': '1',
      file: sinkFile,
      topics: TOPIC,
    });
    await bothRunning();
    await expectSink(first);

    // Lines appended while the pipeline runs are tailed too.
    const more = lines(first.length, 200);
    fs.appendFileSync(sourceFile, more.join('\n') + '\n');
    const all = [...first, ...more];
    await expectSink(all);
    console.log(`[apps/connect] ${all.length} lines source -> sink in ${Date.now() - t0} ms`);
  });

  it('after a worker restart, resumes both connectors from the compacted topics without a duplicate', async () => {
    // Graceful stop: the source task's file position goes to connect-offsets,
    // the sink's consumer offset to the group. The restarted worker learns
    // the connectors from connect-configs alone (no new REST call).
    await worker!.stop(30_000);
    const before = sinkLines();
    const later = lines(before.length, 100);
    fs.appendFileSync(sourceFile, later.join('\n') + '\n');
    const t0 = Date.now();
    await startWorker();
    await bothRunning();
    await expectSink([...before, ...later]);
    console.log(`[apps/connect] restarted worker resumed in ${Date.now() - t0} ms`);
  });
});
