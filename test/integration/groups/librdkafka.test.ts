// librdkafka (confluent-kafka in .cache/venv) in a consumer group: commit with
// metadata, restart, resume exactly from the committed offsets.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CACHE_DIR, REPO_ROOT, runCommand } from '../../helpers/procs.js';
import { createTopic } from '../../helpers/java.js';
import { useBroker } from '../broker-fixture.js';

const fx = useBroker({ args: ['--set', 'group.initial.rebalance.delay.ms=0'] });
const PY = path.join(CACHE_DIR, 'venv', 'bin', 'python');

async function produce(bootstrap: string, topic: string, partition: number, values: string[]): Promise<void> {
  const r = await runCommand('kcat', ['-b', bootstrap, '-P', '-t', topic, '-p', String(partition)], { input: values.join('\n') + '\n', timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`kcat produce failed: ${r.stderr}`);
}

describe('librdkafka consumer group', () => {
  it('commits, restarts and resumes from the committed offsets', async () => {
    const t0 = Date.now();
    const bootstrap = fx.broker.bootstrap;
    const topic = 'rdk-group';
    const perPartition = 200;
    // Create with 3 partitions (auto-create would make 1).
    await createTopic(bootstrap, topic, 3);
    for (let p = 0; p < 3; p++) await produce(bootstrap, topic, p, Array.from({ length: perPartition }, (_, i) => `p${p}-${i}`));

    const total = 3 * perPartition;
    const r = await runCommand(PY, [path.join(REPO_ROOT, 'test/integration/groups/librdkafka_group.py'), bootstrap, topic, 'rdk-g', '250', String(total)], { timeoutMs: 180_000, logName: 'librdkafka-group' });
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
      a: Array<[number, number, string]>; b: Array<[number, number, string]>;
      committed_a: Record<string, { offset: number; metadata: string; leader_epoch: number | null }>;
      first_b: Record<string, number>; committed_b: Record<string, number>; sent_epochs: Record<string, number | null>;
    };
    expect(out.a.length).toBe(250);
    // The restarted consumer starts each partition exactly at the committed offset (0 where nothing was committed).
    for (let p = 0; p < 3; p++) {
      const committed = out.committed_a[p]?.offset ?? 0;
      if (committed < perPartition) expect(out.first_b[p], `partition ${p}`).toBe(committed);
      if (out.committed_a[p]) {
        expect(out.committed_a[p]!.metadata).toBe(`rdk-meta-${p}`);
        // The leader epoch comes back as committed (the epoch of the consumed batch).
        expect(out.committed_a[p]!.leader_epoch).toBe(out.sent_epochs[p]);
        expect(typeof out.sent_epochs[p]).toBe('number');
      }
    }
    // Together exactly every record once, values matching offsets.
    const all = [...out.a, ...out.b];
    expect(all.length).toBe(total);
    expect(new Set(all.map(([p, o]) => `${p}:${o}`)).size).toBe(total);
    for (const [p, o, v] of all) expect(v).toBe(`p${p}-${o}`);
    expect(out.committed_b).toEqual({ 0: perPartition, 1: perPartition, 2: perPartition });
    console.log(`[groups/librdkafka] ${out.a.length} + ${out.b.length} records, committed ${JSON.stringify(out.committed_a)}; ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  });
});
