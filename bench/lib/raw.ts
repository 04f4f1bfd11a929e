// The raw-Redis ceiling: what the same Redis does with the same bytes when
// there is no Kafka protocol, no broker and no JVM in the way. One Node
// process, a bare RESP client (resp.ts), explicit entry ids `<baseOffset>-1`
// exactly as Runnel writes them (docs/redis-keys.md), a fixed number of XADDs
// in flight per connection (the Kafka producer's max.in.flight = 5).
import { RespConnection, type Reply } from './resp.js';
import { latencySummary } from './stats.js';

export interface RawBatch {
  bytes: Buffer;
  records: number;
}

export interface RawProduceOptions {
  port: number;
  /** Stream keys, e.g. rn:p:{t/0}:log ... */
  streams: string[];
  /** Connections ("producers"); stream i is written only by connection i % connections (keeps ids ordered). */
  connections: number;
  /** XADDs in flight per connection. */
  depth: number;
  /** Batches to cycle through. */
  batches: RawBatch[];
  totalRecords: number;
  recordSize: number;
  /** Keep going past totalRecords until this much time has passed (short runs are all noise)... */
  minSeconds?: number;
  /** ...but stop extending once this many batch bytes were written (default 512 MiB). */
  maxWireBytes?: number;
}

export interface ThroughputResult {
  records: number;
  seconds: number;
  recordsPerSec: number;
  /** MiB/s of record values (ProducerPerformance's definition: records * recordSize / 2^20 / s). */
  mbPerSec: number;
  /** Stream entries written / read. */
  entries: number;
  /** Bytes written to / read from Redis (batch bytes). */
  wireBytes: number;
}

export async function rawProduce(o: RawProduceOptions): Promise<ThroughputResult> {
  const conns = await Promise.all(Array.from({ length: o.connections }, () => RespConnection.connect(o.port)));
  const nextOffset = new Map<string, number>(o.streams.map((s) => [s, 0]));
  let remaining = o.totalRecords;
  const maxWireBytes = o.maxWireBytes ?? 512 * 1048576;
  let records = 0;
  let entries = 0;
  let wireBytes = 0;
  let batchIdx = 0;
  let sentBytes = 0;
  const t0 = process.hrtime.bigint();
  try {
    await Promise.all(
      conns.map(async (conn, ci) => {
        const mine = o.streams.filter((_, i) => i % o.connections === ci);
        if (mine.length === 0) return;
        let rr = 0;
        const inFlight = new Set<Promise<void>>();
        let failure: Error | null = null;
        const more = (): boolean =>
          remaining > 0 || (sentBytes < maxWireBytes && Number(process.hrtime.bigint() - t0) / 1e9 < (o.minSeconds ?? 0));
        while (more() && !failure) {
          const b = o.batches[batchIdx++ % o.batches.length]!;
          remaining -= b.records;
          sentBytes += b.bytes.length;
          const stream = mine[rr++ % mine.length]!;
          const base = nextOffset.get(stream)!;
          nextOffset.set(stream, base + b.records);
          const p: Promise<void> = conn.send(['XADD', stream, `${base}-1`, 'b', b.bytes]).then((r: Reply) => {
            inFlight.delete(p);
            if (r instanceof Error) failure = r;
            records += b.records;
            entries++;
            wireBytes += b.bytes.length;
          });
          inFlight.add(p);
          if (inFlight.size >= o.depth) await Promise.race(inFlight);
        }
        await Promise.all(inFlight);
        if (failure) throw failure;
      }),
    );
  } finally {
    for (const c of conns) c.close();
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  return { records, seconds, recordsPerSec: records / seconds, mbPerSec: (records * o.recordSize) / 1048576 / seconds, entries, wireBytes };
}

/** Reads every stream from the start with XRANGE (one request in flight, like one fetch at a time). */
export async function rawConsume(o: { port: number; streams: string[]; recordSize: number; count?: number }): Promise<ThroughputResult> {
  const conn = await RespConnection.connect(o.port);
  const count = o.count ?? 8;
  let records = 0;
  let entries = 0;
  let wireBytes = 0;
  const t0 = process.hrtime.bigint();
  try {
    const cursor = new Map<string, string>(o.streams.map((s) => [s, '-']));
    while (cursor.size) {
      for (const [stream, from] of [...cursor]) {
        const r = (await conn.call(['XRANGE', stream, from, '+', 'COUNT', count])) as Array<[Buffer, Buffer[]]>;
        if (r.length === 0) {
          cursor.delete(stream);
          continue;
        }
        for (const [, fields] of r) {
          const bytes = fields[1]!;
          records += bytes.readInt32BE(57);
          entries++;
          wireBytes += bytes.length;
        }
        const lastId = r[r.length - 1]![0].toString('latin1');
        cursor.set(stream, `(${lastId}`);
        if (r.length < count) cursor.delete(stream);
      }
    }
  } finally {
    conn.close();
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  return { records, seconds, recordsPerSec: records / seconds, mbPerSec: (records * o.recordSize) / 1048576 / seconds, entries, wireBytes };
}

export interface LatencyResult {
  count: number;
  avg: number;
  p50: number;
  p99: number;
  p999: number;
  max: number;
}

/**
 * Open loop at a fixed rate: one single-record batch XADDed every 1/rate s,
 * latency = XADD reply time - send time (the producer's ack latency under
 * ProducerPerformance --throughput).
 */
export async function rawAckLatencyAtRate(o: { port: number; stream: string; rate: number; count: number; batch: Buffer }): Promise<LatencyResult> {
  const conn = await RespConnection.connect(o.port);
  const lat: number[] = [];
  const pending: Promise<void>[] = [];
  try {
    const t0 = performance.now();
    let sent = 0;
    while (sent < o.count) {
      const due = Math.min(o.count, Math.floor(((performance.now() - t0) * o.rate) / 1000) + 1);
      while (sent < due) {
        const start = performance.now();
        const id = `${sent}-1`;
        pending.push(
          conn.call(['XADD', o.stream, id, 'b', o.batch]).then(() => {
            lat.push(performance.now() - start);
          }),
        );
        sent++;
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all(pending);
  } finally {
    conn.close();
  }
  return latencySummary(lat);
}

/**
 * Closed loop like Kafka's EndToEndLatency: XADD one single-record batch, wait
 * until a blocking XREAD on a second connection returns it, repeat.
 */
export async function rawEndToEnd(o: { port: number; stream: string; count: number; batch: Buffer }): Promise<LatencyResult> {
  const prod = await RespConnection.connect(o.port);
  const cons = await RespConnection.connect(o.port);
  const lat: number[] = [];
  try {
    let last = '0-0';
    for (let i = 0; i < o.count; i++) {
      const read = cons.call(['XREAD', 'COUNT', 1, 'BLOCK', 5000, 'STREAMS', o.stream, last]);
      const start = performance.now();
      await prod.call(['XADD', o.stream, `${i + 1}-1`, 'b', o.batch]);
      const r = (await read) as Array<[Buffer, Array<[Buffer, Buffer[]]>]> | null;
      if (!r || !r[0] || r[0][1].length === 0) throw new Error('XREAD returned nothing');
      lat.push(performance.now() - start);
      last = r[0][1][r[0][1].length - 1]![0].toString('latin1');
    }
  } finally {
    prod.close();
    cons.close();
  }
  return latencySummary(lat);
}
