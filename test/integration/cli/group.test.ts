// `runnel consume --group` and `runnel group` against a real broker
// (RUNNEL_TEST_TARGET: Runnel or Apache Kafka): a group consumer commits
// exactly what it printed; describe shows committed offsets, log ends and lag;
// reset-offsets plans (dry run) and executes, and is refused while the group
// has members; two members split the partitions by ranges; Ctrl-C (SIGTERM)
// commits, leaves and exits 0; delete removes the group.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTarget, type Target } from '../../helpers/target.js';
import { waitFor, type ManagedProcess } from '../../helpers/procs.js';
import type { GroupDescription } from '../../../cli/commands/group.js';
import { ok, runnel, runnelProcess } from './support.js';

let target: Target;
const TOPIC = 'cli-grp';
const N = 90;
const bg: ManagedProcess[] = [];

beforeAll(async () => {
  target = await startTarget();
  ok(await runnel(target.bootstrap, ['topic', 'create', TOPIC, '--partitions', '3']));
  const lines = Array.from({ length: N }, (_, i) => `key-${i}\tvalue-${i}`).join('\n');
  ok(await runnel(target.bootstrap, ['produce', TOPIC, '--parse-key'], { input: `${lines}\n` }));
}, 180_000);

afterAll(async () => {
  for (const p of bg) await p.kill();
  await target?.stop();
});

const describeGroup = async (g: string): Promise<GroupDescription> => JSON.parse(ok(await runnel(target.bootstrap, ['group', 'describe', g, '--json']))) as GroupDescription;
const sum = (xs: Array<number | null>): number => xs.reduce<number>((a, b) => a + (b ?? 0), 0);

describe('runnel consume --group and runnel group', () => {
  it('commits what a group consumer printed; describe shows the lag', async () => {
    const r = await runnel(target.bootstrap, ['consume', TOPIC, '--group', 'cg', '--from-beginning', '--max-messages', '40', '--print-key'], { timeoutMs: 90_000 });
    const lines = ok(r).split('\n').filter(Boolean);
    expect(lines).toHaveLength(40);
    expect(new Set(lines).size).toBe(40);
    const d = await describeGroup('cg');
    expect(d.state).toBe('Empty');
    expect(d.members).toEqual([]);
    expect(d.partitions.map((p) => p.partition)).toEqual([0, 1, 2]);
    expect(sum(d.partitions.map((p) => p.logEnd))).toBe(N);
    expect(sum(d.partitions.map((p) => p.committed))).toBe(40);
    expect(sum(d.partitions.map((p) => p.lag))).toBe(N - 40);
    for (const p of d.partitions) expect(p.lag).toBe(p.logEnd! - p.committed!);
    const text = ok(await runnel(target.bootstrap, ['group', 'describe', 'cg']));
    expect(text).toContain(`group cg  state Empty  protocol consumer`);
    expect(text).toContain(`lag ${N - 40}`);
    const listed = JSON.parse(ok(await runnel(target.bootstrap, ['group', 'list', '--json']))) as Array<{ groupId: string; state: string; protocolType: string }>;
    expect(listed.find((g) => g.groupId === 'cg')).toMatchObject({ protocolType: 'consumer' });

    // the next run starts where the last one committed: the other 50 records, none of the first 40
    const rest = ok(await runnel(target.bootstrap, ['consume', TOPIC, '--group', 'cg', '--max-messages', String(N - 40), '--print-key'], { timeoutMs: 90_000 })).split('\n').filter(Boolean);
    expect(rest).toHaveLength(N - 40);
    expect(rest.filter((l) => lines.includes(l))).toEqual([]);
    expect(sum((await describeGroup('cg')).partitions.map((p) => p.lag))).toBe(0);
  });

  it('resets offsets: a dry run changes nothing, --execute commits, --to-offset stays within the log', async () => {
    const plan = ok(await runnel(target.bootstrap, ['group', 'reset-offsets', 'cg', '--topic', TOPIC, '--to-earliest']));
    expect(plan).toContain('dry run');
    expect(sum((await describeGroup('cg')).partitions.map((p) => p.committed))).toBe(N);

    const done = JSON.parse(ok(await runnel(target.bootstrap, ['group', 'reset-offsets', 'cg', '--topic', TOPIC, '--to-earliest', '--execute', '--json']))) as { offsets: Array<{ offset: number }> };
    expect(done.offsets.map((o) => o.offset)).toEqual([0, 0, 0]);
    let d = await describeGroup('cg');
    expect(d.partitions.map((p) => p.committed)).toEqual([0, 0, 0]);
    expect(sum(d.partitions.map((p) => p.lag))).toBe(N);

    ok(await runnel(target.bootstrap, ['group', 'reset-offsets', 'cg', '--topic', `${TOPIC}:1`, '--to-offset', '10', '--execute']));
    ok(await runnel(target.bootstrap, ['group', 'reset-offsets', 'cg', '--topic', `${TOPIC}:2`, '--to-offset', '100000', '--execute']));
    d = await describeGroup('cg');
    const [p0, p1, p2] = d.partitions;
    expect(p0!.committed).toBe(0);
    expect(p1!.committed).toBe(Math.min(10, p1!.logEnd!));
    expect(p2!.committed).toBe(p2!.logEnd);
    ok(await runnel(target.bootstrap, ['group', 'reset-offsets', 'cg', '--all-topics', '--shift-by=-3', '--execute']));
    const shifted = await describeGroup('cg');
    expect(shifted.partitions.map((p) => p.committed)).toEqual([0, Math.max(0, p1!.committed! - 3), Math.max(0, p2!.committed! - 3)]);
  });

  it('refuses to reset or delete a group with members; SIGTERM commits, leaves and exits 0', async () => {
    const before = await describeGroup('cg');
    const expected = sum(before.partitions.map((p) => p.lag));
    const c = runnelProcess('cli-group-consumer', target.bootstrap, ['consume', TOPIC, '--group', 'cg']);
    bg.push(c);
    let d: GroupDescription | null = null;
    await waitFor('the consumer owns all partitions and caught up', async () => {
      d = await describeGroup('cg');
      return d.state === 'Stable' && d.partitions.every((p) => p.memberId !== null);
    }, { timeoutMs: 60_000, intervalMs: 500, proc: c });
    expect(d!.members).toHaveLength(1);
    expect(d!.members[0]!.assignment).toEqual([{ topic: TOPIC, partitions: [0, 1, 2] }]);
    const reset = await runnel(target.bootstrap, ['group', 'reset-offsets', 'cg', '--topic', TOPIC, '--to-earliest', '--execute']);
    expect(reset.code).toBe(1);
    expect(reset.stderr).toContain('NON_EMPTY_GROUP');
    const del = await runnel(target.bootstrap, ['group', 'delete', 'cg']);
    expect(del.code).toBe(1);
    expect(del.stderr).toContain('NON_EMPTY_GROUP');
    await waitFor('the consumer printed the lag', () => c.tail(100_000).split('\n').filter((l) => l.startsWith('value-')).length >= expected, { timeoutMs: 30_000, intervalMs: 200, proc: c });
    const exit = await c.stop();
    expect(exit.code).toBe(0);
    expect(c.tail()).toContain(`Processed a total of ${expected} messages`);
    const after = await describeGroup('cg');
    expect(after.state).toBe('Empty');
    expect(sum(after.partitions.map((p) => p.lag))).toBe(0);
  });

  it('splits the partitions between two members by ranges', async () => {
    const a = runnelProcess('cli-group-a', target.bootstrap, ['consume', TOPIC, '--group', 'cg2']);
    const b = runnelProcess('cli-group-b', target.bootstrap, ['consume', TOPIC, '--group', 'cg2']);
    bg.push(a, b);
    let d: GroupDescription | null = null;
    await waitFor('two members share the partitions', async () => {
      d = await describeGroup('cg2');
      return d.state === 'Stable' && d.members.length === 2 && d.members.every((m) => m.assignment.length === 1);
    }, { timeoutMs: 90_000, intervalMs: 500 });
    const parts = d!.members.map((m) => m.assignment[0]!.partitions).sort((x, y) => y.length - x.length);
    expect(parts).toEqual([[0, 1], [2]]);
    expect((await a.stop()).code).toBe(0);
    expect((await b.stop()).code).toBe(0);
  });

  it('deletes a group; describing or deleting it again is GROUP_ID_NOT_FOUND', async () => {
    expect(ok(await runnel(target.bootstrap, ['group', 'delete', 'cg']))).toBe('Deleted group cg.\n');
    const listed = JSON.parse(ok(await runnel(target.bootstrap, ['group', 'list', '--json']))) as Array<{ groupId: string }>;
    expect(listed.map((g) => g.groupId)).not.toContain('cg');
    const again = await runnel(target.bootstrap, ['group', 'delete', 'cg']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('GROUP_ID_NOT_FOUND');
    const desc = await runnel(target.bootstrap, ['group', 'describe', 'cg']);
    expect(desc.code).toBe(1);
    expect(desc.stderr).toContain('GROUP_ID_NOT_FOUND');
  });
});
