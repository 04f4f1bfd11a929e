// Offsets of tiered topics (KIP-405, KIP-1005): ListOffsets EARLIEST (-2) is the
// Kafka log start in the lake, EARLIEST_LOCAL (-4) the Redis log start,
// LATEST_TIERED (-5) the highest offset the lake holds; lookups by time land in
// the lake or in Redis; DeleteRecords and the total retention move the Kafka
// log start through the lake while the lake rows stay; the tiered-config
// refusals answer INVALID_CONFIG with Kafka's messages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getOffsets, kafkaConfigs, kafkaTopics } from '../../helpers/java.js';
import { sleep, waitFor } from '../../helpers/procs.js';
import { WireClient } from '../../helpers/wire.js';
import {
  EARLIEST, EARLIEST_LOCAL, LATEST, LATEST_TIERED, OFFSET_OUT_OF_RANGE, RETENTION_CHECK_MS,
  createTopic, deleteRecords, fetchAt, filesOf, listOffset, metaKey, offsetOf, produceRun, readProblems, recordsFrom,
  tiered, useTieredLab, waitArchived, waitLocalStart, type FetchAnswer, type Produced,
} from './fault-support.js';

const lab = useTieredLab();
let c: WireClient;

beforeAll(async () => {
  c = await WireClient.connect(lab.broker.port);
});
afterAll(() => c?.close());

const output = (r: { stdout: string; stderr: string }): string => `${r.stdout}\n${r.stderr}`;

/**
 * A tiered topic of 12 batches of 10 records whose timestamps are 1 s apart and
 * 10 minutes old, archived, with Redis trimmed to its newest batch (offsets
 * 110-119; Redis always keeps the newest batch): offsets 0-109 are in the lake only.
 */
async function tieredTopic(topic: string): Promise<{ produced: Produced[]; t0: number }> {
  const t0 = Date.now() - 600_000;
  expect(await createTopic(c, topic, 1, tiered(500))).toEqual({ errorCode: 0, errorMessage: null });
  const produced = await produceRun(c, topic, 0, 12, 10, { ts: (seq) => t0 + seq * 1000 });
  await waitArchived(lab, topic, 0, 119);
  await waitLocalStart(c, topic, 0, 110);
  return { produced, t0 };
}

describe('tiered offsets', () => {
  it('EARLIEST, EARLIEST_LOCAL, LATEST_TIERED and lookups by time across the tiers', async () => {
    const topic = 'to-offsets';
    const archiver = lab.archiver({ RUNNEL_ARCHIVER_TOPICS: `${topic},to-plain` });
    try {
      const { produced, t0 } = await tieredTopic(topic);
      expect(await offsetOf(c, topic, 0, EARLIEST)).toBe(0);
      expect(await offsetOf(c, topic, 0, EARLIEST_LOCAL)).toBe(110);
      expect(await offsetOf(c, topic, 0, LATEST_TIERED)).toBe(119);
      expect(await offsetOf(c, topic, 0, LATEST)).toBe(120);
      // docs/redis-keys.md: the meta hash keeps both starts; Redis trims below the local one
      expect(await lab.client.hmget(metaKey(topic, 0), 'logStartOffset', 'remoteLogStart')).toEqual(['110', '0']);
      await waitFor('XTRIM below the local log start', async () => (await lab.client.xlen(`rn:p:{${topic}/0}:log`)) === 1, { timeoutMs: 10_000 });

      // The Java Admin client's OffsetSpec.earliestLocal() / latestTiered() (ListOffsets v8/v9) agree.
      expect(await getOffsets(lab.broker.bootstrap, topic, 'earliest-local')).toEqual(new Map([[0, 110]]));
      expect(await getOffsets(lab.broker.bootstrap, topic, 'latest-tiered')).toEqual(new Map([[0, 119]]));
      expect(await getOffsets(lab.broker.bootstrap, topic, 'earliest')).toEqual(new Map([[0, 0]]));

      // By time: the first record at or after the timestamp, with that record's timestamp.
      expect(await listOffset(c, topic, 0, t0 + 35_000 - 400)).toEqual({ errorCode: 0, offset: 35, timestamp: t0 + 35_000 });
      expect(await listOffset(c, topic, 0, t0)).toEqual({ errorCode: 0, offset: 0, timestamp: t0 });
      expect(await listOffset(c, topic, 0, t0 + 115_000 - 1)).toEqual({ errorCode: 0, offset: 115, timestamp: t0 + 115_000 });
      expect(await listOffset(c, topic, 0, t0 + 500_000)).toEqual({ errorCode: 0, offset: -1, timestamp: -1 });

      // What the lake answers is what was produced, as Kafka batches: no producer, no leader epoch, uncompressed, CreateTime.
      const first = await waitFetched(topic, 0);
      expect(first.batches.length).toBeGreaterThan(0);
      for (const b of first.batches) {
        expect({ producerId: b.producerId, partitionLeaderEpoch: b.partitionLeaderEpoch, codec: b.codec, timestampType: b.timestampType, control: b.control })
          .toEqual({ producerId: -1, partitionLeaderEpoch: -1, codec: 0, timestampType: 0, control: false });
      }
      const got = recordsFrom(first, 0);
      expect(got[0]!.offset).toBe(0);
      expect(readProblems(got, produced.slice(0, got.length))).toEqual([]);

      // A topic without a remote tier: EARLIEST_LOCAL is the log start, LATEST_TIERED -1 (Kafka).
      expect(await createTopic(c, 'to-plain', 1, {})).toEqual({ errorCode: 0, errorMessage: null });
      await produceRun(c, 'to-plain', 0, 2, 5);
      expect(await offsetOf(c, 'to-plain', 0, EARLIEST_LOCAL)).toBe(0);
      expect(await listOffset(c, 'to-plain', 0, LATEST_TIERED)).toEqual({ errorCode: 0, offset: -1, timestamp: -1 });
    } finally {
      await archiver.kill();
    }
  });

  it('DeleteRecords moves the Kafka log start within the lake, then both starts past the Redis start', async () => {
    const topic = 'to-delete';
    const archiver = lab.archiver({ RUNNEL_ARCHIVER_TOPICS: topic });
    try {
      const { produced } = await tieredTopic(topic);
      expect(await deleteRecords(c, topic, 0, 45)).toEqual({ errorCode: 0, lowWatermark: 45 });
      expect(await offsetOf(c, topic, 0, EARLIEST)).toBe(45);
      expect(await offsetOf(c, topic, 0, EARLIEST_LOCAL)).toBe(110);
      expect(await lab.client.hget(metaKey(topic, 0), 'remoteLogStart')).toBe('45');
      const below = await fetchAt(c, topic, 0, 10);
      expect(below.errorCode).toBe(OFFSET_OUT_OF_RANGE);
      const at = await waitFetched(topic, 45);
      expect(at.logStartOffset).toBe(45);
      expect(recordsFrom(at, 45)[0]!.offset).toBe(45);
      expect(readProblems(recordsFrom(at, 45), produced.slice(45, 45 + recordsFrom(at, 45).length))).toEqual([]);
      // An offset below the log start moves nothing (Kafka answers the current low watermark).
      expect(await deleteRecords(c, topic, 0, 44)).toEqual({ errorCode: 0, lowWatermark: 45 });
      // The retention passes leave a start the lake holds where DeleteRecords put it.
      await sleep(3 * RETENTION_CHECK_MS);
      expect(await offsetOf(c, topic, 0, EARLIEST)).toBe(45);

      // Past the Redis log start: both move, and the lake's offsets are gone for consumers.
      expect(await deleteRecords(c, topic, 0, 115)).toEqual({ errorCode: 0, lowWatermark: 115 });
      expect(await offsetOf(c, topic, 0, EARLIEST)).toBe(115);
      expect(await offsetOf(c, topic, 0, EARLIEST_LOCAL)).toBe(115);
      const rls = await lab.client.hget(metaKey(topic, 0), 'remoteLogStart');
      expect(rls === null || Number(rls) >= 115, `remoteLogStart ${rls}`).toBe(true);
      expect((await fetchAt(c, topic, 0, 50)).errorCode).toBe(OFFSET_OUT_OF_RANGE);
      const tail = await fetchAt(c, topic, 0, 115);
      expect(tail.errorCode).toBe(0);
      expect(readProblems(recordsFrom(tail, 115), produced.slice(115))).toEqual([]);
      await sleep(3 * RETENTION_CHECK_MS);
      expect(await offsetOf(c, topic, 0, EARLIEST)).toBe(115);
      // The lake rows stay (SQL reads them): DeleteRecords hides them from Kafka only.
      expect((await lab.delta(topic)).rows.length).toBe(120);
    } finally {
      await archiver.kill();
    }
  });

  it('retention.ms moves the Kafka log start through the lake, whole files at a time, while delta-rs reads every row', async () => {
    const topic = 'to-total';
    const retentionMs = 8000;
    const archiver = lab.archiver({ RUNNEL_ARCHIVER_TOPICS: topic });
    try {
      expect(await createTopic(c, topic, 1, tiered(300, { 'retention.ms': String(retentionMs) }))).toEqual({ errorCode: 0, errorMessage: null });
      const produced: Produced[] = [];
      // Five rounds 1.5 s apart, each archived on its own (one commit, its own files).
      for (let round = 0; round < 5; round++) {
        produced.push(...await produceRun(c, topic, 0, 3, 10, { firstSeq: produced.length }));
        await waitArchived(lab, topic, 0, produced.length - 1);
        await sleep(1500);
      }
      const last = produced.length; // 150
      const localStart = await waitLocalStart(c, topic, 0, last - 10);
      expect(localStart).toBe(last - 10);
      // The first round passes retention.ms about now: the Kafka log start leaves 0, within the lake (the last rounds stay for seconds).
      let earliest = 0;
      await waitFor('the Kafka log start to move through the lake', async () => (earliest = await offsetOf(c, topic, 0, EARLIEST)) > 0, { timeoutMs: 15_000 });
      const localNow = await offsetOf(c, topic, 0, EARLIEST_LOCAL);
      const read = await lab.delta(topic);
      const starts = filesOf(read, 0).map((f) => f.actual.min_offset);
      console.log(`total retention: Kafka log start ${earliest}, Redis log start ${localNow}, lake files start at ${starts.join(',')}`);
      expect(earliest).toBeLessThan(localNow);
      // The start moved by whole data files: it is where one of the partition's files begins.
      expect(starts).toContain(earliest);
      // Every row is still in the table.
      expect(read.rows.length).toBe(last);
      expect(new Set(read.rows.map((r) => r[1])).size).toBe(last);
      expect((await fetchAt(c, topic, 0, earliest - 1)).errorCode).toBe(OFFSET_OUT_OF_RANGE);
      const at = await waitFetched(topic, earliest);
      expect(readProblems(recordsFrom(at, earliest), produced.slice(earliest, earliest + recordsFrom(at, earliest).length))).toEqual([]);
      expect(recordsFrom(at, earliest)[0]!.offset).toBe(earliest);
      // Later all but the newest batch expires in both tiers; the lake rows stay.
      await waitFor('the Kafka log start to reach the Redis log start', async () => (await offsetOf(c, topic, 0, EARLIEST)) === last - 10, { timeoutMs: 20_000 });
      expect((await lab.delta(topic)).rows.length).toBe(last);
    } finally {
      await archiver.kill();
    }
  });

  it('compacted tiered topics and disabling without deleting are refused with Kafka\'s INVALID_CONFIG messages', async () => {
    const topic = 'to-disable';
    const archiver = lab.archiver({ RUNNEL_ARCHIVER_TOPICS: topic });
    try {
      const compacted = await kafkaTopics(lab.broker.bootstrap, ['--create', '--topic', 'to-compacted', '--partitions', '1', '--replication-factor', '1',
        '--config', 'cleanup.policy=compact', '--config', 'remote.storage.enable=true']);
      expect(compacted.code).not.toBe(0);
      expect(output(compacted)).toContain('InvalidConfigurationException: Remote log storage is unsupported for the compacted topics');

      await tieredTopic(topic);
      const alter = (config: string) => kafkaConfigs(lab.broker.bootstrap, ['--entity-type', 'topics', '--entity-name', topic, '--alter', '--add-config', config]);
      const toCompact = await alter('cleanup.policy=compact');
      expect(toCompact.code).not.toBe(0);
      expect(output(toCompact)).toContain('InvalidConfigurationException: Remote log storage is unsupported for the compacted topics');

      const off = await alter('remote.storage.enable=false');
      expect(off.code).not.toBe(0);
      expect(output(off)).toContain(
        'InvalidConfigurationException: It is invalid to disable remote storage without deleting remote data. '
        + 'If you want to keep the remote data and turn to read only, please set `remote.storage.enable=true,remote.log.copy.disable=true`. '
        + 'If you want to disable remote storage and delete all remote data, please set `remote.storage.enable=false,remote.log.delete.on.disable=true`.',
      );
      // Refused: nothing changed.
      await sleep(2 * RETENTION_CHECK_MS);
      expect(await offsetOf(c, topic, 0, EARLIEST)).toBe(0);
      expect((await waitFetched(topic, 0)).errorCode).toBe(0);

      const offAndDelete = await alter('remote.storage.enable=false,remote.log.delete.on.disable=true');
      expect(offAndDelete.code, output(offAndDelete)).toBe(0);
      // The log start returns to the Redis log start; the lake's offsets are gone for consumers.
      await waitFor('the log start to return to the Redis log start', async () => (await offsetOf(c, topic, 0, EARLIEST)) === 110, { timeoutMs: 10_000 });
      expect(await offsetOf(c, topic, 0, EARLIEST_LOCAL)).toBe(110);
      expect(await listOffset(c, topic, 0, LATEST_TIERED)).toEqual({ errorCode: 0, offset: -1, timestamp: -1 });
      expect(await lab.client.hget(metaKey(topic, 0), 'remoteLogStart')).toBe(null);
      expect((await fetchAt(c, topic, 0, 0)).errorCode).toBe(OFFSET_OUT_OF_RANGE);
      expect((await lab.delta(topic)).rows.length).toBe(120);
    } finally {
      await archiver.kill();
    }
  });
});

/** A fetch at `offset` that returns records: a cold lake read may answer none within remote.fetch.max.wait.ms; the next one is served. */
async function waitFetched(topic: string, offset: number): Promise<FetchAnswer> {
  let a!: FetchAnswer;
  await waitFor(`records at ${topic}/0@${offset}`, async () => {
    a = await fetchAt(c, topic, 0, offset);
    if (a.errorCode !== 0) throw new Error(`fetch at ${offset}: error ${a.errorCode}`);
    return recordsFrom(a, offset).length > 0;
  }, { timeoutMs: 15_000, intervalMs: 100 });
  return a;
}
