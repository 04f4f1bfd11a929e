import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Codec } from '../../../common/record-batch/layout.js';
import { encodeBatch } from '../../helpers/encode-batch.js';
import { compactFiles, encodeDataFiles, readParquetTable } from '../../../archiver/src/parquet/jobs.js';
import { deltaStats } from '../../../archiver/src/parquet/file-stats.js';
import { LocalStore } from '../../../common/lake/local.js';
import { DeltaTable } from '../../../common/lake/delta/table.js';
import { readCheckpoint, writeCheckpoint } from '../../../common/lake/delta/checkpoint.js';
import type { Action } from '../../../common/lake/delta/actions.js';
import { loadConfig } from '../../../archiver/src/config.js';

const dirs: string[] = [];
function tmp() {
  const d = mkdtempSync(path.join(tmpdir(), 'rn-arch-unit-'));
  dirs.push(d);
  return d;
}
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function job(batches: { bytes: Buffer; p: number; skip?: number }[]) {
  const meta = new Float64Array(batches.length * 2);
  batches.forEach((b, i) => meta.set([b.p, b.skip ?? -1], i * 2));
  return { batches: batches.map((b) => new Uint8Array(b.bytes)), meta, verifyCrc: true };
}

const day1 = Date.UTC(2024, 0, 31, 23, 59, 59, 500);
const day2 = Date.UTC(2024, 1, 1, 0, 0, 0, 250);

describe('parquet data files', () => {
  it('splits by UTC date and keeps every column', () => {
    const b1 = encodeBatch(
      [
        { key: Buffer.from('a'), value: Buffer.from('1'), timestamp: day1, headers: [{ key: 'x', value: Buffer.from('y') }] },
        { key: null, value: null, timestamp: day2 },
      ],
      { baseOffset: 0, codec: Codec.ZSTD },
    );
    const b2 = encodeBatch([{ key: Buffer.from('c'), value: Buffer.from('3'), timestamp: day1 + 1 }], { baseOffset: 5 });
    const r = encodeDataFiles(job([{ bytes: b1, p: 2 }, { bytes: b2, p: 3 }]));
    expect(r.records).toBe(3);
    expect(r.files.map((f) => f.date)).toEqual(['2024-01-31', '2024-02-01']);
    const t1 = readParquetTable(r.files[0]!.bytes);
    expect(t1.numRows).toBe(2);
    expect(t1.schema.fields.map((f) => f.name)).toEqual(['partition', 'offset', 'timestamp', 'timestamp_type', 'key', 'value', 'headers']);
    const rows = t1.toArray().map((x) => x.toJSON());
    expect(rows[0]!.partition).toBe(2);
    expect(rows[1]!.partition).toBe(3);
    expect(rows[1]!.offset).toBe(5n);
    expect(rows[0]!.timestamp_type).toBe('CreateTime');
    const s = JSON.parse(deltaStats(r.files[0]!.stats));
    expect(s).toMatchObject({
      numRecords: 2,
      minValues: { partition: 2, offset: 0, timestamp: '2024-01-31T23:59:59.500Z' },
      maxValues: { partition: 3, offset: 5, timestamp: '2024-01-31T23:59:59.501Z' },
      nullCount: { key: 0, value: 0 },
    });
    const s2 = JSON.parse(deltaStats(r.files[1]!.stats));
    expect(s2.nullCount).toMatchObject({ key: 1, value: 1 });
  });

  it('compacts files and recomputes stats', () => {
    const files = [0, 1, 2].map((i) =>
      encodeDataFiles(job([{ bytes: encodeBatch([{ value: Buffer.from(`v${i}`), timestamp: day1 }], { baseOffset: i }), p: 0 }])).files[0]!.bytes,
    );
    const out = compactFiles({ files });
    expect(out.stats.numRecords).toBe(3);
    expect(out.stats.minOffset).toBe(0);
    expect(out.stats.maxOffset).toBe(2);
    const t = readParquetTable(out.bytes);
    expect(t.numRows).toBe(3);
    expect(t.getChild('timestamp')!.type.toString()).toContain('Timestamp');
  });
});

describe('delta log', () => {
  it('put-if-absent on local disk', async () => {
    const s = new LocalStore(tmp());
    expect(await s.putIfAbsent('t/_delta_log/x.json', Buffer.from('1'))).toBe(true);
    expect(await s.putIfAbsent('t/_delta_log/x.json', Buffer.from('2'))).toBe(false);
    expect((await s.get('t/_delta_log/x.json'))!.toString()).toBe('1');
    expect((await s.list('t/_delta_log/')).map((o) => o.key)).toEqual(['t/_delta_log/x.json']);
  });

  it('commits, detects conflicts, recognises its own lost commit, checkpoints', async () => {
    const store = new LocalStore(tmp());
    const a = new DeltaTable(store, 'tbl');
    const b = new DeltaTable(store, 'tbl');
    await a.load();
    await b.load();
    const txn = (v: number): Action[] => [{ txn: { appId: 'runnel/t/0', version: v } }];
    const r1 = await a.commit(() => [{ protocol: { minReaderVersion: 1, minWriterVersion: 2 } }, ...txn(1)], 'WRITE');
    expect(r1).toMatchObject({ status: 'committed', version: 0 });
    // b plans against an old state: conflict -> re-plan sees a's txn -> abort
    const r2 = await b.commit((st) => ((st.txns.get('runnel/t/0')?.version ?? -1) !== -1 ? null : txn(5)), 'WRITE');
    expect(r2.status).toBe('aborted');
    // own commit whose response was "lost": retry with the same txnId at the same version
    const id = 'fixed-txn-0-0-0'; // any text in UUID's dash-separated shape
    const c = new DeltaTable(store, 'tbl');
    await c.load();
    const stale = new DeltaTable(store, 'tbl');
    await stale.load();
    expect((await c.commit(() => txn(2), 'WRITE', id)).status).toBe('committed');
    const again = await stale.commit(() => txn(2), 'WRITE', id);
    expect(again).toMatchObject({ status: 'committed', version: 1, attempts: 1 });
    for (let i = 0; i < 3; i++) await c.commit(() => [{ add: { path: `f${i}`, partitionValues: { date: '2024-01-01' }, size: 1, modificationTime: 1, dataChange: true } }], 'WRITE');
    await c.commit(() => [{ remove: { path: 'f0', deletionTimestamp: Date.now(), dataChange: false } }], 'OPTIMIZE');
    expect(await c.checkpoint()).toBe(5);
    const d = new DeltaTable(store, 'tbl');
    const st = await d.load();
    expect(st.version).toBe(5);
    expect(st.txns.get('runnel/t/0')!.version).toBe(2);
    expect([...st.files.keys()].sort()).toEqual(['f1', 'f2']);
    expect(st.tombstones.has('f0')).toBe(true);
    expect(st.protocol).toEqual({ minReaderVersion: 1, minWriterVersion: 2 });
  });

  it('checkpoint parquet round trip', () => {
    const actions: Action[] = [
      { protocol: { minReaderVersion: 1, minWriterVersion: 2 } },
      {
        metaData: {
          id: 'id1',
          format: { provider: 'parquet', options: {} },
          schemaString: '{}',
          partitionColumns: ['date'],
          configuration: { a: 'b' },
          createdTime: 5,
        },
      },
      { txn: { appId: 'runnel/x/1', version: 42, lastUpdated: 7 } },
      { add: { path: 'date=2024-01-01/p.parquet', partitionValues: { date: '2024-01-01' }, size: 10, modificationTime: 3, dataChange: false, stats: '{"numRecords":1}' } },
      {
        add: {
          path: 'date=2024-01-01/q.parquet', partitionValues: { date: '2024-01-01' }, size: 20, modificationTime: 4, dataChange: false,
          tags: { 'runnel.partitions': '[[0,5,9,5,1,2,20]]', other: 'x' },
        },
      },
    ];
    const back = readCheckpoint(writeCheckpoint(actions));
    expect(back).toHaveLength(5);
    expect(back.find((a) => 'txn' in a)).toMatchObject({ txn: { appId: 'runnel/x/1', version: 42 } });
    expect(back.find((a) => 'add' in a)).toMatchObject({ add: { partitionValues: { date: '2024-01-01' }, size: 10 } });
    // the per-partition ranges tag survives a checkpoint (the remote tier may load the table from one)
    expect(back.find((a) => 'add' in a && a.add.path.endsWith('q.parquet'))).toMatchObject({
      add: { tags: { 'runnel.partitions': '[[0,5,9,5,1,2,20]]', other: 'x' } },
    });
    expect(back.find((a) => 'metaData' in a)).toMatchObject({ metaData: { partitionColumns: ['date'], configuration: { a: 'b' } } });
  });
});

describe('assignment and config', () => {
  it('reads env', () => {
    const c = loadConfig({ RUNNEL_LAKE: 's3://b/p', RUNNEL_S3_FORCE_PATH_STYLE: 'true', RUNNEL_ARCHIVER_TARGET_FILE_BYTES: '4096' });
    expect(c.lake).toBe('s3://b/p');
    expect(c.s3ForcePathStyle).toBe(true);
    expect(c.smallFileBytes).toBe(1024);
    expect(c.keyPrefix).toBe('rn');
    expect(() => loadConfig({ RUNNEL_ARCHIVER_LEASE_TTL_MS: 'x' })).toThrow(/RN3001/);
  });
});
