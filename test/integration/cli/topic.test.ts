// `runnel topic` against a real broker (RUNNEL_TEST_TARGET: Runnel or Apache
// Kafka): create with configs, list, describe (partitions, leaders, configs),
// alter-config (set and delete), add-partitions, delete; Kafka error names and
// exit codes 1 (a refused request) and 2 (bad arguments).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTarget, type Target } from '../../helpers/target.js';
import { waitFor } from '../../helpers/procs.js';
import { ok, runnel } from './support.js';

let target: Target;
const cli = (args: string[]) => runnel(target.bootstrap, ['topic', ...args]);

beforeAll(async () => {
  target = await startTarget();
}, 180_000);

afterAll(async () => {
  await target?.stop();
});

interface Described {
  name: string;
  topicId: string;
  partitions: Array<{ partition: number; leader: number; replicas: number[]; isr: number[] }>;
  configs: Array<{ name: string; value: string | null; source: string }>;
}

const describeJson = async (name: string, extra: string[] = []): Promise<Described> => JSON.parse(ok(await cli(['describe', name, '--json', ...extra]))) as Described;

describe('runnel topic', () => {
  it('creates, describes, alters, grows and deletes a topic', async () => {
    expect(ok(await cli(['create', 'cli-orders', '--partitions', '3', '--config', 'retention.ms=3600000', '--config', 'max.message.bytes=200000']))).toBe('Created topic cli-orders.\n');

    const listed = JSON.parse(ok(await cli(['list', '--json', '--exclude-internal']))) as Array<{ name: string; partitions: number }>;
    expect(listed.find((t) => t.name === 'cli-orders')).toMatchObject({ partitions: 3 });
    expect(listed.some((t) => t.name.startsWith('__'))).toBe(false);
    expect(ok(await cli(['list']))).toMatch(/^cli-orders\s+3\s+no$/m);

    // a new partition's leader may take a leadership tick to appear (leader -1 until then)
    let d = await describeJson('cli-orders');
    await waitFor('every partition led', async () => (d = await describeJson('cli-orders')).partitions.every((p) => p.leader >= 0), { timeoutMs: 20_000, intervalMs: 200 });
    expect(d.topicId).toMatch(/^[0-9a-f-]{36}$/);
    expect(d.partitions.map((p) => p.partition)).toEqual([0, 1, 2]);
    for (const p of d.partitions) {
      expect(p.leader).toBeGreaterThanOrEqual(0);
      expect(p.replicas).toContain(p.leader);
      expect(p.isr).toContain(p.leader);
    }
    expect(d.configs.map((c) => [c.name, c.value, c.source])).toEqual([
      ['max.message.bytes', '200000', 'DYNAMIC_TOPIC_CONFIG'],
      ['retention.ms', '3600000', 'DYNAMIC_TOPIC_CONFIG'],
    ]);
    const text = ok(await cli(['describe', 'cli-orders']));
    expect(text).toContain(`topic cli-orders  id ${d.topicId}  partitions 3`);
    expect(text).toMatch(/^retention\.ms\s+3600000\s+DYNAMIC_TOPIC_CONFIG$/m);

    expect(ok(await cli(['alter-config', 'cli-orders', '--config', 'retention.ms=60000', '--delete-config', 'max.message.bytes']))).toBe('Altered configs of topic cli-orders.\n');
    d = await describeJson('cli-orders');
    expect(d.configs.map((c) => [c.name, c.value])).toEqual([['retention.ms', '60000']]);
    const all = await describeJson('cli-orders', ['--all-configs']);
    expect(all.configs.find((c) => c.name === 'max.message.bytes')?.source).not.toBe('DYNAMIC_TOPIC_CONFIG');
    expect(all.configs.find((c) => c.name === 'cleanup.policy')?.value).toBe('delete');

    expect(ok(await cli(['add-partitions', 'cli-orders', '--partitions', '5']))).toBe('Topic cli-orders has 5 partitions.\n');
    expect((await describeJson('cli-orders')).partitions.map((p) => p.partition)).toEqual([0, 1, 2, 3, 4]);

    expect(ok(await cli(['delete', 'cli-orders']))).toBe('Deleted topic cli-orders.\n');
    const gone = await cli(['describe', 'cli-orders']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('UNKNOWN_TOPIC_OR_PARTITION');
  });

  it('names Kafka errors and exits 1; --if-not-exists and --if-exists make them quiet', async () => {
    ok(await cli(['create', 'cli-dup', '--partitions', '1']));
    const dup = await cli(['create', 'cli-dup', '--partitions', '1']);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/^runnel topic: create topic cli-dup: TOPIC_ALREADY_EXISTS/);
    expect(ok(await cli(['create', 'cli-dup', '--partitions', '1', '--if-not-exists']))).toBe('');
    const shrink = await cli(['add-partitions', 'cli-dup', '--partitions', '1']);
    expect(shrink.code).toBe(1);
    expect(shrink.stderr).toContain('INVALID_PARTITIONS');
    const badConfig = await cli(['alter-config', 'cli-dup', '--config', 'cleanup.policy=sometimes']);
    expect(badConfig.code).toBe(1);
    expect(badConfig.stderr).toContain('INVALID_CONFIG');
    ok(await cli(['delete', 'cli-dup']));
    expect(ok(await cli(['delete', 'cli-dup', '--if-exists']))).toBe('');
    const missing = await cli(['delete', 'cli-dup']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('UNKNOWN_TOPIC_OR_PARTITION');
  });

  it('exits 2 with the usage on bad arguments and 1 when nothing listens', async () => {
    const usage = await cli(['create']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('missing topic name');
    expect(usage.stderr).toContain('usage: runnel topic create NAME');
    expect((await cli(['explode', 'x'])).code).toBe(2);
    expect((await cli(['create', 'x', '--partitions', 'many'])).code).toBe(2);
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('runnel topic alter-config NAME');
    const down = await runnel('127.0.0.1:1', ['topic', 'list']);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/cannot connect to 127\.0\.0\.1:1/);
  });
});
