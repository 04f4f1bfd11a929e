// bench/lib/cpu.ts: a server's CPU includes what its forked children spent
// (Redis's AOF-rewrite children), both while a child runs and after it exited.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processCpuSeconds, processTreeCpuSeconds } from '../../bench/lib/cpu.js';

/** A shell that forks a busy child, waits for it, then idles until stdin closes. */
function parentWithBusyChild() {
  const busy = 'i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done';
  return spawn('sh', ['-c', `sh -c '${busy}'; echo done; read x`], { stdio: ['pipe', 'pipe', 'ignore'] });
}

describe('processTreeCpuSeconds', () => {
  it("counts a child's CPU while it runs and after its parent reaped it; the process alone does not", async () => {
    const p = parentWithBusyChild();
    const pid = p.pid!;
    let whileRunning = 0;
    const sampler = setInterval(() => {
      whileRunning = Math.max(whileRunning, processTreeCpuSeconds(pid) ?? 0);
    }, 50);
    await new Promise<void>((resolve) => p.stdout!.on('data', (d: Buffer) => d.toString().includes('done') && resolve()));
    clearInterval(sampler);
    const tree = processTreeCpuSeconds(pid)!;
    const own = processCpuSeconds(pid)!;
    p.stdin!.end();
    await new Promise((r) => p.on('exit', r));
    // the child spent well over 0.2 s of CPU; the waiting parent next to nothing
    expect(tree).toBeGreaterThan(0.2);
    expect(own).toBeLessThan(0.1);
    // sampled while the child was still running (it was not yet reaped into the parent's cutime)
    expect(whileRunning).toBeGreaterThan(0.05);
    expect(tree).toBeGreaterThanOrEqual(whileRunning);
  });

  it('is null for a process that is gone', () => {
    expect(processTreeCpuSeconds(2 ** 22 + 7)).toBeNull();
  });
});
