// librdkafka (confluent-kafka in .cache/venv) with group.protocol=consumer
// (KIP-848): two consumers split a 4-partition topic with the broker's
// assignor, read every record once between them (commits before revocation),
// and the group's committed offsets end at the log end.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_DIR, REPO_ROOT, runCommand } from '../../helpers/procs.js';
import { createTopic } from '../../helpers/java.js';
import { startTarget, type Target } from '../../helpers/target.js';

// Runnel, or Apache Kafka with RUNNEL_TEST_TARGET=kafka; a short heartbeat interval on both.
let target: Target;
beforeAll(async () => {
  target = await startTarget({
    runnel: { args: ['--set', 'group.consumer.heartbeat.interval.ms=500'] },
    kafka: { props: { 'group.consumer.heartbeat.interval.ms': 500, 'group.consumer.min.heartbeat.interval.ms': 500 } },
  });
});
afterAll(async () => {
  await target?.stop();
});
const PY = path.join(CACHE_DIR, 'venv', 'bin', 'python');
const PARTITIONS = 4;
const PER_PARTITION = 100;

describe('librdkafka consumers with group.protocol=consumer', () => {
  it('split the partitions and read each record once; committed offsets reach the end', async () => {
    const t0 = Date.now();
    const bootstrap = target.bootstrap;
    const topic = 'rdk-kip848';
    await createTopic(bootstrap, topic, PARTITIONS);
    for (let p = 0; p < PARTITIONS; p++) {
      const values = Array.from({ length: PER_PARTITION }, (_, i) => `p${p}-${i}`).join('\n') + '\n';
      const r = await runCommand('kcat', ['-b', bootstrap, '-P', '-t', topic, '-p', String(p)], { input: values, timeoutMs: 60_000 });
      expect(r.code, r.stderr).toBe(0);
    }
    const total = PARTITIONS * PER_PARTITION;
    const r = await runCommand(PY, [path.join(REPO_ROOT, 'test/integration/groups/librdkafka_kip848.py'), bootstrap, topic, 'rdk-kip848-g', String(PARTITIONS), String(total)], { timeoutMs: 150_000, logName: 'librdkafka-kip848' });
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
      read: Record<string, number>; unique: number; duplicates: number; assignments: Record<string, number[]>; committed: Record<string, number>;
    };
    expect(out.unique).toBe(total);
    expect(out.duplicates).toBe(0);
    // The uniform assignor split the 4 partitions 2/2.
    expect(out.assignments.a!.length).toBe(2);
    expect(out.assignments.b!.length).toBe(2);
    expect(out.committed).toEqual(Object.fromEntries(Array.from({ length: PARTITIONS }, (_, p) => [String(p), PER_PARTITION])));
    console.log(`[groups/librdkafka-kip848 ${target.kind}] read ${JSON.stringify(out.read)}, assignments ${JSON.stringify(out.assignments)}; ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  });
});
