// A failed commit resets the topic (archiver/src/commit.ts resetTable): the
// buffer is dropped and every partition re-reads from its committed txn
// version. A flush that was already encoded from the next buffer (flushes are
// pipelined: one commits while the next encodes) belongs to the old
// generation: it is dropped unwritten, not uploaded and then aborted, and every
// record still reaches the table exactly once.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ObjectInfo, ObjectStore } from '../../../common/lake/store.js';
import type { Logger } from '../../../common/logger/logger.js';
import {
  archiverEnv,
  builtArchiver,
  createTopic,
  diffRows,
  newProducer,
  produce,
  readDelta,
  redisForFile,
  waitArchived,
  waitFor,
} from './helpers.js';

const lab = redisForFile();

/** A lake whose first data-file upload waits for `fail()` and then fails; everything else goes to `inner`. */
function gatedStore(inner: ObjectStore) {
  let fail!: () => void;
  const failed = new Promise<void>((r) => (fail = r));
  let held = false;
  const uploads: string[] = [];
  const store: ObjectStore = {
    url: inner.url,
    async put(key: string, body: Uint8Array) {
      if (key.includes('/date=')) {
        if (!held) {
          held = true;
          await failed;
          throw new Error('injected: upload failed');
        }
        uploads.push(key);
      }
      return inner.put(key, body);
    },
    putIfAbsent: (k: string, b: Uint8Array) => inner.putIfAbsent(k, b),
    get: (k: string) => inner.get(k),
    list: (p: string, s?: string): Promise<ObjectInfo[]> => inner.list(p, s),
    delete: (k: string) => inner.delete(k),
    close: () => inner.close(),
  };
  return { store, fail, uploads, isHeld: () => held };
}

function parquetFiles(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.parquet') && !f.startsWith('_delta_log')).map((f) => f.split(path.sep).join('/')).sort();
}

const quiet: Logger = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} };

describe('a reset drops the flush encoded from the next buffer', () => {
  it('the second flush, encoded while the first upload fails, is not uploaded; no commit aborts; exactly once', async () => {
    const topic = 'reset-gen';
    const dir = lab.dir('reset-gen');
    const prod = newProducer();
    await createTopic(lab.redis.client, topic, 1);
    await produce(lab.redis.client, prod, topic, 0, 60, 5, { valueBytes: 1000 });

    const { Archiver, loadConfig, LocalStore } = await builtArchiver();
    const cfg = loadConfig(
      archiverEnv({
        redisUrl: lab.redis.url,
        lake: `file://${dir}`,
        extra: {
          RUNNEL_ARCHIVER_TOPICS: topic,
          RUNNEL_ARCHIVER_TARGET_FILE_BYTES: '40000',
          RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '100',
          RUNNEL_ARCHIVER_OPTIMIZE_INTERVAL_MS: '0',
          RUNNEL_ARCHIVER_VACUUM_INTERVAL_MS: '0',
        },
      }),
    );
    const gate = gatedStore(new LocalStore(dir));
    const a = new Archiver(cfg, undefined, { store: gate.store, logger: quiet });
    await a.start();
    try {
      // the first upload is held; the next buffer is taken and encoded meanwhile
      await waitFor(async () => {
        const t = a.topics.get(topic);
        return gate.isHeld() && t !== undefined && t.flushesInFlight === 2 && !t.encoding;
      }, 20_000, 'a second flush encoded behind the held upload');
      gate.fail();
      await waitArchived(lab.redis.client, topic, prod, 30_000);
    } finally {
      await a.stop();
    }
    expect(a.stats.errors).toBeGreaterThanOrEqual(1); // the injected failure happened
    expect(a.stats.commitsAborted).toBe(0); // the second flush did not reach the table's txn check
    const read = await readDelta(`file://${dir}/${topic}`, { appIds: [`runnel/${topic}/0`] });
    expect(diffRows(read, prod.expected)).toEqual([]);
    // every data file on disk is in the table: the dropped flush wrote none
    expect(parquetFiles(path.join(dir, topic))).toEqual(read.files.map((f) => f.path).sort());
    expect(gate.uploads.length).toBe(read.files.length);
  });
});
