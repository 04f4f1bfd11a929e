// Lake faults answer KAFKA_STORAGE_ERROR, logged once, never a hang: a data
// file listed but missing (unless a refresh shows it merged away by
// OPTIMIZE: then the merged file serves the read), a corrupt data file, an S3 endpoint that never answers or answers
// 500. A table of another topic id holds nothing for this topic.
import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { mkdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { openLakeRemoteLog, type LakeRemoteLog } from '../../../broker/src/lake/remote-log.js';
import { compactFiles } from '../../../archiver/src/parquet/jobs.js';
import { deltaStats } from '../../../archiver/src/parquet/file-stats.js';
import { ErrorCode, KafkaError } from '../../../common/errors.js';
import { LocalStore } from '../../../common/lake/local.js';
import type { Action, AddFile } from '../../../common/lake/delta/actions.js';
import { createLogger } from '../../../common/logger/logger.js';
import { commitFiles, fetched, records, removeLakes, table, tmpLake, writeDataFiles } from './fixture.js';

const T0 = Date.UTC(2026, 11, 1, 10);
const ID = 'faa17000-0000-4000-8000-000000000003';
const open: LakeRemoteLog[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
  vi.unstubAllEnvs();
});
afterAll(async () => {
  removeLakes();
  for (const s of servers) s.close();
});

function reader(lake: string, o: { lines?: string[]; readTimeoutMs?: number; s3Endpoint?: string; refreshIntervalMs?: number } = {}) {
  const logger = createLogger('warn', 'broker', { stream: { write: (l: string) => o.lines?.push(l) ?? true } });
  const r = openLakeRemoteLog({ lake, cacheBytes: 1 << 24, refreshIntervalMs: o.refreshIntervalMs ?? 60_000, logger, workers: 1, readAhead: false, readTimeoutMs: o.readTimeoutMs, s3Endpoint: o.s3Endpoint, s3ForcePathStyle: true, s3Region: 'us-east-1' });
  open.push(r);
  return r;
}

async function storageError(p: Promise<unknown>): Promise<KafkaError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(KafkaError);
  expect((e as KafkaError).code).toBe(ErrorCode.KAFKA_STORAGE_ERROR);
  return e as KafkaError;
}

const tp = { topic: 't', partition: 0 };

async function twoFiles(lake: string) {
  const t = await table(lake, 't', ID);
  const a = await writeDataFiles(lake, 't', [{ partition: 0, baseOffset: 0, records: records(20, T0) }, { partition: 1, baseOffset: 0, records: records(5, T0) }]);
  const b = await writeDataFiles(lake, 't', [{ partition: 0, baseOffset: 20, records: records(20, T0 + 20) }]);
  await commitFiles(t, a);
  await commitFiles(t, b);
  return { t, a: a[0]!, b: b[0]!, want: [...a, ...b].flatMap((f) => f.records).filter((x) => x.partition === 0) };
}

describe('lake reader: faults', () => {
  it('a file OPTIMIZE merged away and VACUUM deleted: the read refreshes and is served from the merged file; old entries leave the cache', async () => {
    const lake = tmpLake();
    const { t, a, b, want } = await twoFiles(lake);
    const lines: string[] = [];
    const r = reader(lake, { lines });
    expect(fetched(await r.read(tp, ID, 0, 100, 1), 0)[0]!.offset).toBe(0);
    expect(r.stats().cacheEntries).toBe(2); // file a: partitions 0 and 1

    // OPTIMIZE as the archiver does it: merged file (no partitions tag: it holds two partitions), remove + add, then VACUUM
    const store = new LocalStore(lake);
    const blobs = await Promise.all([a, b].map(async (f) => (await store.get(`t/${f.add.path}`))!));
    const merged = compactFiles({ files: blobs });
    const add: AddFile = { path: `date=${a.add.partitionValues.date}/part-${randomUUID()}.zstd.parquet`, partitionValues: a.add.partitionValues, size: merged.bytes.length, modificationTime: Date.now(), dataChange: false, stats: deltaStats(merged.stats) };
    await store.put(`t/${add.path}`, merged.bytes);
    await t.commit(() => [...[a, b].map((f): Action => ({ remove: { path: f.add.path, deletionTimestamp: Date.now(), dataChange: false } })), { add }], 'OPTIMIZE');
    await Promise.all([a, b].map((f) => unlink(path.join(lake, 't', f.add.path))));

    // the view still lists file b: its absence makes the reader refresh, find the merged file and read that
    const got = fetched(await r.read(tp, ID, 20, 100, 1 << 20), 0);
    expect(got).toEqual(want.filter((x) => x.offset >= 20));
    expect(fetched(await r.read(tp, ID, 0, 100, 1 << 20), 0)).toEqual(want);
    // file a's entries are gone; the merged file's are in
    expect(r.stats().cacheEntries).toBe(2);
    expect(lines).toEqual([]);
  });

  it('a file missing for good fails every read with KAFKA_STORAGE_ERROR, logged once', async () => {
    const lake = tmpLake();
    const { b } = await twoFiles(lake);
    await unlink(path.join(lake, 't', b.add.path));
    const lines: string[] = [];
    const r = reader(lake, { lines });
    await storageError(r.read(tp, ID, 25, 100, 1 << 20));
    await storageError(r.read(tp, ID, 25, 100, 1 << 20));
    expect(lines.filter((l) => l.includes('lake read failed'))).toHaveLength(1);
    // the file still there serves its offsets
    expect(fetched(await r.read(tp, ID, 0, 20, 1 << 20), 0)).toHaveLength(20);
  });

  it('a corrupt data file: KAFKA_STORAGE_ERROR, and the reader goes on', async () => {
    const lake = tmpLake();
    const { a } = await twoFiles(lake);
    await writeFile(path.join(lake, 't', a.add.path), Buffer.from('PAR1 this is no parquet file at all PAR1'));
    const r = reader(lake);
    const e = await storageError(r.read(tp, ID, 0, 100, 1 << 20));
    expect(e.message).toMatch(/cannot be decoded/);
    expect(fetched(await r.read(tp, ID, 20, 100, 1 << 20), 0)).toHaveLength(20);
  });

  it('a table archived for another topic id holds nothing for this topic', async () => {
    const lake = tmpLake();
    await twoFiles(lake);
    const lines: string[] = [];
    const r = reader(lake, { lines });
    const other = 'a0000000-0000-4000-8000-00000000beef';
    expect(await r.read(tp, other, 0, 100, 1 << 20)).toEqual([]);
    expect(await r.extent(tp, other)).toBeNull();
    expect(await r.segments(tp, other)).toEqual([]);
    expect(await r.offsetForTimestamp(tp, other, 0, 100)).toBeNull();
    expect(lines.filter((l) => l.includes('another topic id'))).toHaveLength(1);
    expect(await r.read(tp, ID, 0, 100, 1 << 20)).not.toEqual([]);
  });

  it('an S3 endpoint that accepts and never answers: KAFKA_STORAGE_ERROR after readTimeoutMs', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
    const held: Socket[] = [];
    const s = createServer((c) => held.push(c));
    servers.push(s);
    s.listen(0, '127.0.0.1');
    await once(s, 'listening');
    const port = (s.address() as { port: number }).port;
    const r = reader('s3://bucket/lake', { readTimeoutMs: 700, s3Endpoint: `http://127.0.0.1:${port}` });
    const t0 = Date.now();
    const e = await storageError(r.read(tp, ID, 0, 100, 1 << 20));
    expect(e.message).toMatch(/ran past 700 ms/);
    expect(Date.now() - t0).toBeLessThan(5_000);
    for (const c of held) c.destroy();
  });

  it('an S3 endpoint answering 500: KAFKA_STORAGE_ERROR', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
    const s = createHttpServer((_, res) => {
      res.writeHead(500, { 'content-type': 'application/xml' });
      res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>injected</Message></Error>');
    });
    servers.push(s);
    s.listen(0, '127.0.0.1');
    await once(s, 'listening');
    const port = (s.address() as { port: number }).port;
    const r = reader('s3://bucket/lake', { readTimeoutMs: 1_500, s3Endpoint: `http://127.0.0.1:${port}` });
    await storageError(r.extent(tp, ID));
  });

  it('a periodic refresh that fails (an unreadable commit) leaves the last view serving reads, logged once', async () => {
    const lake = tmpLake();
    const { t, want } = await twoFiles(lake);
    const lines: string[] = [];
    const r = reader(lake, { lines, refreshIntervalMs: 0 });
    expect(fetched(await r.read(tp, ID, 0, 100, 1 << 20), 0)).toEqual(want.filter((x) => x.offset < 40));
    // the next commit's name taken by a directory: reading it fails (EISDIR)
    await mkdir(path.join(lake, 't', '_delta_log', `${String(t.state.version + 1).padStart(20, '0')}.json`));
    expect(fetched(await r.read(tp, ID, 0, 100, 1 << 20), 0)).toHaveLength(40);
    expect(fetched(await r.read(tp, ID, 30, 100, 1 << 20), 0)).toHaveLength(10);
    expect(lines.filter((l) => l.includes('refresh failed'))).toHaveLength(1);
  });
});
