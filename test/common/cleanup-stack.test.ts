// The broker's cleanup stack (broker/src/cleanup-stack.ts): closes run in
// reverse order of registration, one after the other; a failing close does not
// stop the rest; the stack runs once however often it is asked.
import { describe, expect, it } from 'vitest';
import { CleanupStack } from '../../common/cleanup-stack.js';

describe('CleanupStack', () => {
  it('closes the last opened first, each after the previous one has settled', async () => {
    const s = new CleanupStack();
    const log: string[] = [];
    s.push(() => { log.push('redis'); });
    s.push(async () => { await new Promise((r) => setTimeout(r, 20)); log.push('listeners'); });
    s.push(() => { log.push('leadership'); });
    await s.run();
    expect(log).toEqual(['leadership', 'listeners', 'redis']);
  });

  it('runs every close when one fails, and rejects with the first failure', async () => {
    const s = new CleanupStack();
    const log: string[] = [];
    s.push(() => { log.push('a'); });
    s.push(() => { throw new Error('b failed'); });
    s.push(async () => { throw new Error('c failed'); });
    await expect(s.run()).rejects.toThrow('c failed');
    expect(log).toEqual(['a']);
  });

  it('runs once: a second run shares the first and closes nothing again', async () => {
    const s = new CleanupStack();
    let closes = 0;
    s.push(async () => { await new Promise((r) => setTimeout(r, 10)); closes++; });
    const first = s.run();
    const second = s.run();
    expect(second).toBe(first);
    await Promise.all([first, second]);
    await s.run();
    expect(closes).toBe(1);
  });
});
