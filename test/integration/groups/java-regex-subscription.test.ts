// A Java 4.4 consumer with group.protocol=consumer and a SubscriptionPattern
// (KIP-848 regular-expression subscription, ConsumerGroupHeartbeat v1): the
// broker resolves the expression against whole topic names, so the consumer
// reads the matching topics and not the others, and a matching topic created
// later is assigned to it without a restart. Runs against Runnel or, with
// RUNNEL_TEST_TARGET=kafka, Apache Kafka.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTopic, JAVA_CP, log4jConfig } from '../../helpers/java.js';
import { REPO_ROOT, runCommand, spawnManaged, waitFor, type ManagedProcess } from '../../helpers/procs.js';
import { startTarget, type Target } from '../../helpers/target.js';

let target: Target;
let consumer: ManagedProcess | null = null;
beforeAll(async () => {
  target = await startTarget({
    runnel: { args: ['--set', 'group.consumer.heartbeat.interval.ms=500'] },
    kafka: { props: { 'group.consumer.heartbeat.interval.ms': 500, 'group.consumer.min.heartbeat.interval.ms': 500 } },
  });
});
afterAll(async () => {
  await consumer?.stop(5000);
  await target?.stop();
});

async function produce(topic: string, partitions: number, perPartition: number): Promise<void> {
  for (let p = 0; p < partitions; p++) {
    const r = await runCommand('kcat', ['-b', target.bootstrap, '-P', '-t', topic, '-p', String(p)], { input: Array.from({ length: perPartition }, (_, i) => `${topic}-${i}`).join('\n') + '\n', timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
  }
}

/** The last progress line the consumer printed. */
function progress(p: ManagedProcess): { n: number; topics: string[] } {
  const lines = fs.readFileSync(p.logFile, 'utf8').split('\n').filter((l) => l.startsWith('{"n"'));
  return lines.length ? JSON.parse(lines.at(-1)!) as { n: number; topics: string[] } : { n: 0, topics: [] };
}

describe('Java SubscriptionPattern with group.protocol=consumer', () => {
  it('reads the topics the broker matches, and a matching topic created later', async () => {
    const t0 = Date.now();
    await createTopic(target.bootstrap, 're-orders-eu', 2);
    await createTopic(target.bootstrap, 're-orders-us', 1);
    await createTopic(target.bootstrap, 'x-re-orders-eu', 1); // matches only as a substring: not a whole-name match
    await produce('re-orders-eu', 2, 10);
    await produce('re-orders-us', 1, 10);
    await produce('x-re-orders-eu', 1, 10);

    // javac into a private folder (not the shared .cache/java/classes).
    const classes = fs.mkdtempSync(path.join(os.tmpdir(), 'kip848-java-'));
    const src = path.join(REPO_ROOT, 'test/integration/groups/java/RegexConsumer.java');
    const javac = await runCommand('javac', ['-nowarn', '-d', classes, '-cp', JAVA_CP, src], { timeoutMs: 120_000 });
    expect(javac.code, javac.stderr).toBe(0);
    const c = spawnManaged('kip848-regex', 'java', ['-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', `-Dlog4j2.configurationFile=${log4jConfig('WARN')}`,
      '-cp', `${classes}${path.delimiter}${JAVA_CP}`, 'RegexConsumer', target.bootstrap, 'kip848-regex', 're-orders-.*']);
    consumer = c;
    await waitFor('the matching topics read', () => progress(c).n >= 30, { timeoutMs: 45_000, intervalMs: 200 });
    expect(progress(c)).toEqual({ n: 30, topics: ['re-orders-eu', 're-orders-us'] });

    // A new matching topic: the group's subscription now resolves to it, it is assigned and read.
    await createTopic(target.bootstrap, 're-orders-apac', 1);
    await produce('re-orders-apac', 1, 10);
    await waitFor('the new topic read', () => progress(c).n >= 40, { timeoutMs: 45_000, intervalMs: 200 });
    expect(progress(c)).toEqual({ n: 40, topics: ['re-orders-apac', 're-orders-eu', 're-orders-us'] });
    console.log(`[groups/kip848-regex ${target.kind}] ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  });
});
