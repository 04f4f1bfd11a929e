// watchStatus, the loop of `runnel status --watch`: a report per interval until
// stop; redrawn on a terminal, appended otherwise; a failed read is written and
// the watch goes on.
import { describe, expect, it } from 'vitest';
import { statusText, watchStatus, type WatchOptions } from '../../cli/status.js';
import type { StatusReport } from '../../broker/src/redis/status-report.js';

const report = (n: number): StatusReport => ({
  cluster: false, time: n, brokers: [{ nodeId: n, host: 'h', port: 9092, rack: null, live: true, instance: null }] as unknown as StatusReport['brokers'],
  topics: [], groups: [], redis: [],
});

async function watch(o: Partial<WatchOptions> & { reports: number; fail?: number }): Promise<{ out: string[]; reads: number }> {
  const out: string[] = [];
  let reads = 0;
  let stop = (): void => undefined;
  const stopped = new Promise<void>((r) => { stop = r; });
  await watchStatus(async () => {
    reads++;
    if (reads > o.reports) stop(); // stopped during a read: that report is not written
    if (reads === o.fail) throw new Error('connect ECONNREFUSED');
    return report(reads);
  }, (r) => statusText(r), {
    intervalMs: 5, tty: false, json: false, write: (t) => out.push(t), stop: stopped, now: () => new Date(0), ...o,
  });
  return { out, reads };
}

describe('watchStatus', () => {
  it('appends a report per interval under a time line when not a terminal', async () => {
    const { out, reads } = await watch({ reports: 3 });
    expect(reads).toBe(4);
    expect(out).toHaveLength(3);
    expect(out[0]).toBe(`--- runnel status at 1970-01-01T00:00:00.000Z, every 0.005s (Ctrl-C to stop)\n${statusText(report(1))}\n`);
    expect(out[2]).toContain('brokers (1 live)');
    expect(out.join('')).not.toContain('\u001b[');
  });

  it('redraws the screen on a terminal', async () => {
    const { out } = await watch({ reports: 2, tty: true });
    expect(out).toHaveLength(2);
    for (const t of out) expect(t.startsWith('\u001b[H\u001b[2Jrunnel status at ')).toBe(true);
  });

  it('--json appended: one compact object per line', async () => {
    const { out } = await watch({ reports: 2, json: true });
    const lines = out.join('').trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as StatusReport).time)).toEqual([1, 2]);
  });

  it('writes a failed read and goes on', async () => {
    const { out } = await watch({ reports: 3, fail: 2 });
    expect(out).toHaveLength(3);
    expect(out[1]).toContain('status failed: connect ECONNREFUSED');
    expect(out[2]).toContain('brokers (1 live)');
  });

  it('stops during the wait without another read', async () => {
    let stop = (): void => undefined;
    const stopped = new Promise<void>((r) => { stop = r; });
    let reads = 0;
    const started = Date.now();
    const done = watchStatus(async () => { reads++; return report(reads); }, (r) => statusText(r), {
      intervalMs: 60_000, tty: false, json: false, write: () => undefined, stop: stopped,
    });
    setTimeout(stop, 20);
    await done;
    expect(reads).toBe(1);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
