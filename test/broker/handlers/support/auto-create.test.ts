// The auto-creation queue (broker/src/topics/auto-create.ts) on the memory store: answers before
// anything is created, one bulk store call per chunk, no name created twice, the partition limit
// counted with the partitions still being created.
import { describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../../../broker/src/config/config.js';
import { LogManager } from '../../../../broker/src/log/log-manager.js';
import { AUTO_CREATE_CHUNK, AutoTopicCreator } from '../../../../broker/src/handlers/support/auto-create.js';
import type { TopicRecord } from '../../../../broker/src/storage/log-store.js';
import { ErrorCode } from '../../../../common/errors.js';
import { MemoryLogStore } from '../../support/memory-log-store.js';

function setup(args: string[] = []) {
  const store = new MemoryLogStore();
  const calls: number[] = [];
  const bulk = store.createTopics.bind(store);
  store.createTopics = async (ts: TopicRecord[]) => { calls.push(ts.length); return bulk(ts); };
  const logs = new LogManager(store, loadBrokerConfig(args, {}));
  return { store, calls, creator: new AutoTopicCreator(logs) };
}

describe('AutoTopicCreator', () => {
  it('answers first, then creates in chunks of AUTO_CREATE_CHUNK; repeated names are created once', async () => {
    const { store, calls, creator } = setup();
    const names = Array.from({ length: 1200 }, (_, i) => `t${i}`);
    const answers = await creator.request([...names, 't0']);
    expect([...answers.values()].every((a) => a === 'creating')).toBe(true);
    expect(answers.size).toBe(1200);
    // Asked again before the queue ran: still 'creating', queued once.
    const again = await creator.request(names.slice(0, 10));
    expect([...again.values()]).toEqual(Array(10).fill('creating'));
    await creator.idle();
    expect(calls).toEqual([AUTO_CREATE_CHUNK, AUTO_CREATE_CHUNK, 1200 - 2 * AUTO_CREATE_CHUNK]);
    expect((await store.listTopics()).length).toBe(1200);
    expect(creator.pending).toBe(0);
    // Existing now: nothing more is written.
    await creator.request(names.slice(0, 5));
    await creator.idle();
    expect(calls.length).toBe(3);
  });

  it('counts queued partitions against cluster.max.partitions', async () => {
    const { store, creator } = setup(['--set', 'cluster.max.partitions=10', '--set', 'num.partitions=3']);
    const answers = await creator.request(['a', 'b', 'c', 'd']);
    expect(answers.get('c')).toBe('creating');
    expect(answers.get('d')).toMatchObject({ code: ErrorCode.POLICY_VIOLATION });
    await creator.idle();
    expect((await store.listTopics()).map((t) => t.name).sort()).toEqual(['a', 'b', 'c']);
  });
});
