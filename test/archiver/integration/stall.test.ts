// A stored batch that cannot be decoded stalls only its own partition
// (archiver/src/records/stall.ts): the other partitions of the topic keep
// committing to the Delta table, the stall shows in the lag report and the
// counters, it is logged once (not once per retry), and removing the bad entry
// resumes the partition without a restart.
import { describe, expect, it } from 'vitest';
import { Codec } from '../../../common/record-batch/layout.js';
import { encodeBatch } from '../../helpers/encode-batch.js';
import type { Logger } from '../../../common/logger/logger.js';
import { withHeader, withRecordsSection } from '../../helpers/batches.js';
import {
  archiverEnv,
  builtArchiver,
  createTopic,
  diffRows,
  metaKey,
  newProducer,
  produce,
  readDelta,
  redisForFile,
  redisKey,
  sleep,
  waitFor,
} from './helpers.js';

const lab = redisForFile();

/** Collects log lines in memory (the archiver runs in this process). */
function memoryLogger(): Logger & { lines: { level: string; msg: string }[] } {
  const lines: { level: string; msg: string }[] = [];
  const at = (level: string) => (msg: string) => void lines.push({ level, msg });
  return { lines, error: at('error'), warn: at('warn'), info: at('info'), debug: () => {} };
}

const three = (tag: string) => [0, 1, 2].map((i) => ({ value: Buffer.from(`${tag}-${i}`), timestamp: Date.UTC(2024, 4, 30, 12, 0, i) }));

describe('a bad stored batch stalls only its partition', () => {
  it('junk zstd payload with a valid CRC (p1) and recordCount > lastOffsetDelta + 1 (p2): p0 keeps committing', async () => {
    const topic = 'poison';
    const dir = lab.dir('poison');
    const prod = newProducer();
    await createTopic(lab.redis.client, topic, 3);
    for (let p = 0; p < 3; p++) await produce(lab.redis.client, prod, topic, p, 4, 5, { control: false });
    const stallAt = { 1: prod.next.get(1)!, 2: prod.next.get(2)! };

    // p1: a zstd batch of 3 records whose payload is junk, re-signed so the CRC holds
    const junk = withRecordsSection(encodeBatch(three('junk'), { baseOffset: stallAt[1], codec: Codec.ZSTD }), Buffer.alloc(200, 0x5a), Codec.ZSTD);
    const junkId = await lab.redis.client.xadd(redisKey(topic, 1), `${stallAt[1]}-1`, 'b', junk);
    prod.next.set(1, stallAt[1] + 3);
    await produce(lab.redis.client, prod, topic, 1, 1, 3, { control: false }); // good batch behind it

    // p2: 3 records in an offset range of 2 (lastOffsetDelta 1): corrupt on its face
    const crowded = withHeader(encodeBatch(three('crowded'), { baseOffset: stallAt[2] }), { lastOffsetDelta: 1 });
    await lab.redis.client.xadd(redisKey(topic, 2), `${stallAt[2]}-1`, 'b', crowded);
    const behind = newProducer(); // rows behind p2's bad batch never reach the lake: not expected
    behind.next.set(2, stallAt[2] + 2);
    await produce(lab.redis.client, behind, topic, 2, 1, 3, { control: false });

    const { Archiver, loadConfig } = await builtArchiver();
    const cfg = loadConfig(archiverEnv({ redisUrl: lab.redis.url, lake: `file://${dir}`, extra: { RUNNEL_ARCHIVER_TOPICS: topic, RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '100' } }));
    const log = memoryLogger();
    const a = new Archiver(cfg, undefined, { logger: log });
    await a.start();
    const archived = async (p: number) => Number((await lab.redis.client.hget(metaKey(topic, p), 'archived')) ?? -1);
    const stalledOf = () => Object.fromEntries(a.lag().map((l) => [l.partition, l.stallCode]));
    try {
      await waitFor(async () => (await archived(0)) === prod.next.get(0)! - 1, 30_000, 'p0 archived');
      await waitFor(async () => (await archived(1)) === stallAt[1] - 1, 30_000, 'p1 archived up to the junk batch');
      await waitFor(async () => (await archived(2)) === stallAt[2] - 1, 30_000, 'p2 archived up to the crowded batch');
      await waitFor(async () => stalledOf()[1] === 'RN4003' && stalledOf()[2] === 'RN4003', 10_000, 'p1 and p2 reported stalled');
      expect(stalledOf()[0]).toBeNull();

      // the stall is per partition: p0 keeps archiving and committing
      const v0 = (await readDelta(`file://${dir}/${topic}`, { appIds: [`runnel/${topic}/0`] })).version;
      await produce(lab.redis.client, prod, topic, 0, 3, 4, { control: false });
      await waitFor(async () => (await archived(0)) === prod.next.get(0)! - 1, 30_000, 'p0 archived after the stall');
      const mid = await readDelta(`file://${dir}/${topic}`, { appIds: [0, 1, 2].map((p) => `runnel/${topic}/${p}`) });
      expect(mid.version).toBeGreaterThan(v0);
      expect(mid.txn).toEqual({ [`runnel/${topic}/0`]: prod.next.get(0)! - 1, [`runnel/${topic}/1`]: stallAt[1] - 1, [`runnel/${topic}/2`]: stallAt[2] - 1 });

      // retries run every 1, 2, 4 s ... without logging again
      await sleep(3500);
      const stallLines = (p: number) => log.lines.filter((l) => l.msg.startsWith('RN4003') && l.msg.includes(`${topic}/${p} stalled`));
      expect([stallLines(1).length, stallLines(2).length]).toEqual([1, 1]);
      expect(log.lines.filter((l) => l.msg.startsWith('RN4003')).length).toBeLessThanOrEqual(3); // + one "re-reading with record checks"
      expect(a.stats.corruptBatches).toBe(2);

      // an operator removes the bad entry: p1 resumes (with a gap warning) and archives what follows
      expect(await lab.redis.client.xdel(redisKey(topic, 1), junkId!)).toBe(1);
      await waitFor(async () => (await archived(1)) === prod.next.get(1)! - 1, 30_000, 'p1 archived after the bad entry was removed');
      expect(stalledOf()[1]).toBeNull();
      expect(stalledOf()[2]).toBe('RN4003');
      expect(log.lines.some((l) => l.msg.startsWith('RN4006'))).toBe(true);
    } finally {
      await a.stop();
    }
    const read = await readDelta(`file://${dir}/${topic}`, { appIds: [0, 1, 2].map((p) => `runnel/${topic}/${p}`) });
    expect(diffRows(read, prod.expected)).toEqual([]);
    expect(read.txn[`runnel/${topic}/2`]).toBe(stallAt[2] - 1);
  });
});
