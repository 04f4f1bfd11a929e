// The decode workers: real threads (the .ts sources loaded by the pool's
// bootstrap), a failed or crashed job rejects, and a dead worker is replaced.
import { afterAll, describe, expect, it } from 'vitest';
import { DecodePool } from '../../../broker/src/lake/decode-pool.js';
import { M, META_FIELDS } from '../../../broker/src/lake/batch-meta.js';
import { encodeDataFiles } from '../../../archiver/src/parquet/jobs.js';
import { batchBytes, records, recordsOf } from './fixture.js';

const T0 = Date.UTC(2026, 11, 1, 10);
const pools: DecodePool[] = [];
afterAll(() => Promise.all(pools.map((p) => p.close())));

function dataFile(n: number): Uint8Array {
  const b = batchBytes({ partition: 5, baseOffset: 0, records: records(n, T0) });
  return encodeDataFiles({ batches: [new Uint8Array(b)], meta: Float64Array.from([5, -1]), verifyCrc: true }).files[0]!.bytes;
}

describe('lake decode pool', () => {
  it('rebuilds in a worker thread, keeps working after a corrupt file and after its worker dies', async () => {
    const pool = new DecodePool(1, 10_000);
    pools.push(pool);
    expect(pool.threaded).toBe(true);
    const parts = await pool.rebuild({ files: [dataFile(30)], partition: -1, targetBatchBytes: 1 << 20 });
    expect(parts.map((p) => [p.partition, p.records, p.meta.length / META_FIELDS, p.meta[M.LAST]])).toEqual([[5, 30, 1, 29]]);
    expect(recordsOf([Buffer.from(parts[0]!.bytes)], 5)).toHaveLength(30);

    await expect(pool.rebuild({ files: [new Uint8Array(Buffer.from('PAR1 not a parquet file PAR1'))], partition: -1, targetBatchBytes: 1 << 20 })).rejects.toThrow();
    expect(pool.replaced).toBe(0);

    const pending = pool.rebuild({ files: [dataFile(2000)], partition: -1, targetBatchBytes: 1 << 20 });
    pool.crashOne();
    await expect(pending).rejects.toThrow(/exited/);
    expect(pool.replaced).toBe(1);
    const again = await pool.rebuild({ files: [dataFile(3)], partition: 5, targetBatchBytes: 1 << 20 });
    expect(again[0]!.records).toBe(3);
  });

  it('a job past its timeout loses its worker and rejects', async () => {
    const pool = new DecodePool(1, 1);
    pools.push(pool);
    await expect(pool.rebuild({ files: [dataFile(20_000)], partition: -1, targetBatchBytes: 1 << 20 })).rejects.toThrow(/ran past 1 ms/);
    expect(pool.replaced).toBe(1);
  });

  it('the event loop keeps turning while a file decodes', async () => {
    const pool = new DecodePool(1, 30_000);
    pools.push(pool);
    const file = dataFile(10_000);
    await pool.rebuild({ files: [dataFile(10)], partition: -1, targetBatchBytes: 1 << 20 });
    let ticks = 0;
    let running = true;
    const spin = () => {
      ticks++;
      if (running) setImmediate(spin);
    };
    setImmediate(spin);
    const parts = await pool.rebuild({ files: [file], partition: -1, targetBatchBytes: 1 << 20 });
    running = false;
    expect(parts[0]!.records).toBe(10_000);
    // inline, the decode would run in one turn of the loop
    expect(ticks).toBeGreaterThan(10);
  });
});
