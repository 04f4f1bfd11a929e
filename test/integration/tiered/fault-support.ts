// Harness of the tiered-storage fault and offset tests: one Redis, one broker
// whose lake is a temp folder (or S3 behind a fault proxy) and archiver
// processes per file; wire-level Fetch/ListOffsets/DeleteRecords; an
// independent RecordBatch decoder that checks each CRC; a kcat consumer.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { crc32c } from '@node-rs/crc32';
import { afterAll, beforeAll } from 'vitest';
import { CreateTopics } from '../../../broker/src/protocol/messages/create-topics.js';
import { DeleteRecords } from '../../../broker/src/protocol/messages/delete-records.js';
import { Fetch } from '../../../broker/src/protocol/messages/fetch.js';
import { ListOffsets } from '../../../broker/src/protocol/messages/list-offsets.js';
import { Produce } from '../../../broker/src/protocol/messages/produce.js';
import { archiverEnv, readDelta, S3_KEY, S3_SECRET, spawnArchiver, startS3, type ArchiverProc, type DeltaRead, type S3Handle } from '../../archiver/integration/helpers.js';
import { buildBatch, type TestRecord } from '../../helpers/batches.js';
import { freePort, HOST, sleep, waitFor } from '../../helpers/procs.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { WireClient } from '../../helpers/wire.js';

export const EARLIEST = -2;
export const LATEST = -1;
export const EARLIEST_LOCAL = -4;
export const LATEST_TIERED = -5;
export const KAFKA_STORAGE_ERROR = 56;
export const OFFSET_OUT_OF_RANGE = 1;
/** log.retention.check.interval.ms of every test broker (the spec's test value). */
export const RETENTION_CHECK_MS = 500;
export const REMOTE_FETCH_MAX_WAIT_MS = 500;

/** The archiver settings of these tests: small, frequent commits (one per produce round). */
export const FAST_ARCHIVER: Record<string, string> = {
  RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '100',
  RUNNEL_LOG_LEVEL: 'warn',
};

export interface TieredLab {
  redis: RedisServer;
  /** ioredis on the lab's Redis, for the test's own reads. */
  client: Redis;
  broker: RunnelBroker;
  /** The lake URI the broker and the archivers share. */
  lake: string;
  /** The local lake folder (file lakes). */
  lakeDir: string;
  s3?: S3Handle;
  /** The fault proxy between the broker and S3 (S3 lakes; the archivers go to S3 directly). */
  proxy?: S3Proxy;
  /** Spawns an archiver on the lab's Redis and lake; stopped (SIGKILL) after the file. */
  archiver(extra?: Record<string, string>): ArchiverProc;
  /** A delta-rs read of `<lake>/<topic>`, with the txn versions of its partitions `0..partitions-1`. */
  delta(topic: string, partitions?: number): Promise<DeltaRead>;
}

/**
 * The per-file fixture. `sets`: extra broker settings (key=value); `s3`: the
 * lake is s3://lake/tiered on moto, the broker reaching it through a proxy.
 */
export function useTieredLab(o: { sets?: string[]; s3?: boolean } = {}): TieredLab {
  const lab = {} as TieredLab;
  const archivers: ArchiverProc[] = [];
  beforeAll(async () => {
    lab.lakeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rn-tiered-faults-'));
    lab.redis = await startRedis({ appendonly: false });
    lab.client = new Redis(lab.redis.url, { maxRetriesPerRequest: 3 });
    lab.client.on('error', () => {});
    let brokerSets: string[];
    let brokerEnv: Record<string, string> = {};
    let archiverLake: { lake: string; s3Endpoint?: string };
    if (o.s3) {
      lab.s3 = await startS3('lake');
      lab.proxy = await startS3Proxy(lab.s3.port);
      lab.lake = 's3://lake/tiered';
      brokerSets = [`lake=${lab.lake}`, `s3.endpoint=${lab.proxy.endpoint}`, 's3.force.path.style=true', 's3.region=us-east-1'];
      brokerEnv = { AWS_ACCESS_KEY_ID: S3_KEY, AWS_SECRET_ACCESS_KEY: S3_SECRET, AWS_REGION: 'us-east-1' };
      archiverLake = { lake: lab.lake, s3Endpoint: lab.s3.endpoint };
    } else {
      lab.lake = `file://${lab.lakeDir}`;
      brokerSets = [`lake=${lab.lake}`];
      archiverLake = { lake: lab.lake };
    }
    const sets = [
      ...brokerSets,
      `log.retention.check.interval.ms=${RETENTION_CHECK_MS}`,
      `remote.fetch.max.wait.ms=${REMOTE_FETCH_MAX_WAIT_MS}`,
      'remote.log.metadata.refresh.interval.ms=300',
      ...(o.sets ?? []),
    ];
    lab.broker = await startRunnel({ redisUrl: lab.redis.url, args: sets.flatMap((s) => ['--set', s]), env: brokerEnv });
    lab.archiver = (extra = {}) => {
      const a = spawnArchiver(archiverEnv({ redisUrl: lab.redis.url, ...archiverLake, extra: { ...FAST_ARCHIVER, ...extra } }));
      archivers.push(a);
      return a;
    };
    lab.delta = (topic, partitions = 1) => readDelta(`${lab.lake}/${topic}`, {
      ...(lab.s3 ? { s3: lab.s3 } : {}),
      appIds: Array.from({ length: partitions }, (_, p) => `runnel/${topic}/${p}`),
    });
  });
  afterAll(async () => {
    for (const a of archivers) await a.kill('SIGKILL');
    await lab.broker?.stop();
    lab.client?.disconnect();
    await lab.redis?.stop();
    await lab.proxy?.stop();
    await lab.s3?.stop();
    if (lab.lakeDir) fs.rmSync(lab.lakeDir, { recursive: true, force: true });
  });
  return lab;
}

// ------------------------------------------------------------------ wire requests

export async function createTopic(c: WireClient, name: string, partitions: number, configs: Record<string, string>): Promise<{ errorCode: number; errorMessage: string | null }> {
  const r = await c.request(CreateTopics, 7, {
    topics: [{ name, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: Object.entries(configs).map(([n, value]) => ({ name: n, value })) }],
    timeoutMs: 10_000,
  });
  return { errorCode: r.topics[0].errorCode, errorMessage: r.topics[0].errorMessage ?? null };
}

/** Tiered topic configs: Redis keeps `localMs` of what the archiver committed. */
export const tiered = (localMs: number, more: Record<string, string> = {}): Record<string, string> => ({
  'remote.storage.enable': 'true',
  'local.retention.ms': String(localMs),
  ...more,
});

/** Produce v9 acks=-1 of one uncompressed batch; resolves with its base offset (throws on an error code). */
export async function produce(c: WireClient, topic: string, partition: number, records: TestRecord[]): Promise<number> {
  const r = await c.request(Produce, 9, {
    transactionalId: null, acks: -1, timeoutMs: 5000,
    topicData: [{ name: topic, partitionData: [{ index: partition, records: buildBatch(records) }] }],
  });
  const p = r.responses[0].partitionResponses[0];
  if (p.errorCode !== 0) throw new Error(`produce ${topic}/${partition}: error ${p.errorCode} ${p.errorMessage ?? ''}`);
  return Number(p.baseOffset);
}

/** The value every produced record of these tests carries: it names its topic, partition and sequence number. */
export const valueOf = (topic: string, partition: number, seq: number): string => `${topic}/${partition}/#${seq}`;

export interface Produced { offset: number; timestamp: number; key: string; value: string; headers: [string, string | null][] }

/**
 * `batches` batches of `perBatch` records on one partition, record i of the
 * partition with timestamp ts(i), a key, a value naming it and (every third)
 * headers. Resolves with what was produced, by offset.
 */
export async function produceRun(
  c: WireClient, topic: string, partition: number, batches: number, perBatch: number,
  o: { firstSeq?: number; ts?: (seq: number) => number; pad?: number } = {},
): Promise<Produced[]> {
  const out: Produced[] = [];
  let seq = o.firstSeq ?? 0;
  for (let b = 0; b < batches; b++) {
    const recs: Array<TestRecord & { seq: number }> = [];
    for (let i = 0; i < perBatch; i++, seq++) {
      const value = valueOf(topic, partition, seq) + (o.pad ? ` ${'p'.repeat(o.pad)}` : '');
      const headers: Array<[string, Buffer | null]> = seq % 3 === 0 ? [['seq', Buffer.from(String(seq))], ['none', null]] : [];
      recs.push({ seq, key: Buffer.from(`k${seq % 13}`), value: Buffer.from(value), timestamp: o.ts ? o.ts(seq) : Date.now(), headers });
    }
    const base = await produce(c, topic, partition, recs);
    recs.forEach((r, i) => out.push({
      offset: base + i, timestamp: r.timestamp!, key: r.key!.toString(), value: r.value!.toString(),
      headers: (r.headers ?? []).map(([k, v]) => [k, v === null ? null : v.toString()]),
    }));
  }
  return out;
}

export interface OffsetAnswer { errorCode: number; offset: number; timestamp: number }

/** ListOffsets (v9 by default: EARLIEST_LOCAL and LATEST_TIERED) for one partition. */
export async function listOffset(c: WireClient, topic: string, partition: number, spec: number, version = 9): Promise<OffsetAnswer> {
  const r = await c.request(ListOffsets, version, {
    replicaId: -1, isolationLevel: 0, timeoutMs: 10_000,
    topics: [{ name: topic, partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp: spec }] }],
  });
  const p = r.topics[0].partitions[0];
  return { errorCode: p.errorCode, offset: Number(p.offset), timestamp: Number(p.timestamp) };
}

/** The offset ListOffsets answers (throws on an error code). */
export async function offsetOf(c: WireClient, topic: string, partition: number, spec: number): Promise<number> {
  const a = await listOffset(c, topic, partition, spec);
  if (a.errorCode !== 0) throw new Error(`ListOffsets ${spec} of ${topic}/${partition}: error ${a.errorCode}`);
  return a.offset;
}

export async function deleteRecords(c: WireClient, topic: string, partition: number, offset: number): Promise<{ errorCode: number; lowWatermark: number }> {
  const r = await c.request(DeleteRecords, 2, { topics: [{ name: topic, partitions: [{ partitionIndex: partition, offset }] }], timeoutMs: 5000 });
  const p = r.topics[0].partitions[0];
  return { errorCode: p.errorCode, lowWatermark: Number(p.lowWatermark) };
}

export interface FetchedRecord { offset: number; timestamp: number; key: string | null; value: string | null; headers: [string, string | null][] }

export interface FetchedBatch {
  baseOffset: number;
  lastOffset: number;
  partitionLeaderEpoch: number;
  producerId: number;
  codec: number;
  /** 0 CreateTime, 1 LogAppendTime. */
  timestampType: number;
  control: boolean;
  records: FetchedRecord[];
}

export interface FetchAnswer { errorCode: number; highWatermark: number; logStartOffset: number; batches: FetchedBatch[]; ms: number }

/** Fetch v12 (by topic name) of one partition, one or more (`also`) partitions in one request; answers in request order. */
export async function fetchMany(
  c: WireClient, parts: Array<{ topic: string; partition: number; offset: number }>,
  o: { maxBytes?: number; maxWaitMs?: number; timeoutMs?: number } = {},
): Promise<FetchAnswer[]> {
  const maxBytes = o.maxBytes ?? 1 << 20;
  const byTopic = new Map<string, Array<{ partition: number; offset: number }>>();
  for (const p of parts) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p]);
  const t0 = Date.now();
  const r = await c.request(Fetch, 12, {
    replicaId: -1, maxWaitMs: o.maxWaitMs ?? 0, minBytes: 1, maxBytes: Math.max(maxBytes, 1 << 20), isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
    topics: [...byTopic].map(([topic, ps]) => ({
      topic, partitions: ps.map((p) => ({ partition: p.partition, currentLeaderEpoch: -1, fetchOffset: p.offset, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: maxBytes })),
    })),
    forgottenTopicsData: [], rackId: '',
  }, o.timeoutMs ?? 30_000);
  const ms = Date.now() - t0;
  return parts.map((want) => {
    const t = (r.responses as Array<{ topic: string; partitions: Array<Record<string, any>> }>).find((x) => x.topic === want.topic);
    const p = t?.partitions.find((x) => x.partitionIndex === want.partition);
    if (!p) throw new Error(`no answer for ${want.topic}/${want.partition}`);
    return {
      errorCode: p.errorCode, highWatermark: Number(p.highWatermark), logStartOffset: Number(p.logStartOffset),
      batches: p.records ? parseBatches(Buffer.from(p.records)) : [], ms,
    };
  });
}

export async function fetchAt(c: WireClient, topic: string, partition: number, offset: number, o: { maxBytes?: number; maxWaitMs?: number; timeoutMs?: number } = {}): Promise<FetchAnswer> {
  return (await fetchMany(c, [{ topic, partition, offset }], o))[0]!;
}

/** Records at or above `from` in a fetch answer. */
export const recordsFrom = (a: FetchAnswer, from: number): FetchedRecord[] => a.batches.flatMap((b) => b.records).filter((r) => r.offset >= from);

/**
 * Reads one partition from `from` up to `to` (exclusive) by offsets, as a
 * simple consumer does: each fetch continues after the last batch returned.
 * `retry(code)` true: the error is waited out (the fetch is sent again), else thrown.
 */
export async function replay(
  port: number, topic: string, partition: number, from: number, to: number,
  o: { maxBytes?: number; retry?: (errorCode: number) => boolean; timeoutMs?: number; onFetch?: (a: FetchAnswer, offset: number) => void; pauseMs?: number } = {},
): Promise<FetchedRecord[]> {
  const out: FetchedRecord[] = [];
  const end = Date.now() + (o.timeoutMs ?? 60_000);
  let offset = from;
  let c: WireClient | null = null;
  try {
    while (offset < to) {
      if (Date.now() > end) throw new Error(`replay of ${topic}/${partition} stuck at ${offset} (to ${to})`);
      let a: FetchAnswer;
      try {
        c ??= await WireClient.connect(port);
        a = await fetchAt(c, topic, partition, offset, { maxBytes: o.maxBytes, maxWaitMs: 100, timeoutMs: 5000 });
      } catch (e) {
        // the broker went away (a test kills it): connect again and go on from the same offset
        c?.close();
        c = null;
        if (!o.retry?.(-1)) throw e;
        await sleep(100);
        continue;
      }
      o.onFetch?.(a, offset);
      if (a.errorCode !== 0) {
        if (o.retry?.(a.errorCode)) { await sleep(50); continue; }
        throw new Error(`fetch ${topic}/${partition} at ${offset}: error ${a.errorCode}`);
      }
      for (const b of a.batches) {
        for (const r of b.records) {
          if (r.offset < offset) continue;
          out.push(r);
          offset = r.offset + 1;
        }
        offset = Math.max(offset, b.lastOffset + 1);
      }
      if (o.pauseMs) await sleep(o.pauseMs);
    }
  } finally {
    c?.close();
  }
  return out;
}

export interface Chase { records: FetchedRecord[]; fetches: number; lakeFetches: number }

/**
 * A consumer by offsets following a growing partition from 0: fetch after
 * fetch of `maxBytes()`, pausing `pauseMs()` after each answer, until it has read up to
 * `end()` (null while the producer still runs). Before each fetch it asks
 * EARLIEST_LOCAL, to count the fetches below the Redis log start (served by
 * the lake). Any error code fails it; an empty answer (a lake read slower
 * than remote.fetch.max.wait.ms, or the log end) is fetched again.
 */
export async function chase(
  port: number, topic: string, partition: number,
  o: { maxBytes: () => number; pauseMs: () => number; end: () => number | null; timeoutMs?: number },
): Promise<Chase> {
  const c = await WireClient.connect(port);
  const out: Chase = { records: [], fetches: 0, lakeFetches: 0 };
  const deadline = Date.now() + (o.timeoutMs ?? 120_000);
  let offset = 0;
  try {
    for (;;) {
      const end = o.end();
      if (end !== null && offset >= end) return out;
      if (Date.now() > deadline) throw new Error(`chase of ${topic}/${partition} stuck at ${offset} (end ${end})`);
      const local = await offsetOf(c, topic, partition, EARLIEST_LOCAL);
      const a = await fetchAt(c, topic, partition, offset, { maxBytes: o.maxBytes(), maxWaitMs: 50, timeoutMs: 5000 });
      out.fetches++;
      if (offset < local) out.lakeFetches++;
      if (a.errorCode !== 0) throw new Error(`fetch ${topic}/${partition} at ${offset} (local log start ${local}): error ${a.errorCode}`);
      for (const b of a.batches) {
        for (const r of b.records) if (r.offset >= offset) { out.records.push(r); offset = r.offset + 1; }
        offset = Math.max(offset, b.lastOffset + 1);
      }
      const pause = o.pauseMs();
      if (pause > 0) await sleep(pause);
    }
  } finally {
    c.close();
  }
}

// ------------------------------------------------------------------ RecordBatch v2 decoding (independent of the broker's code)

function varint(b: Buffer, pos: { o: number }): number {
  let shift = 0;
  let raw = 0;
  for (;;) {
    const byte = b[pos.o++];
    if (byte === undefined) throw new Error('varint past the end of the batch');
    raw += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) break;
    shift += 7;
  }
  return raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
}

function bytesOrNull(b: Buffer, pos: { o: number }): string | null {
  const n = varint(b, pos);
  if (n < 0) return null;
  const s = b.toString('utf8', pos.o, pos.o + n);
  pos.o += n;
  return s;
}

/** Every whole batch of a Fetch answer's records (a partial batch at the end is dropped, as clients do); throws on a bad CRC or a compressed batch. */
export function parseBatches(data: Buffer): FetchedBatch[] {
  const out: FetchedBatch[] = [];
  let at = 0;
  while (at + 61 <= data.length) {
    const size = data.readInt32BE(at + 8) + 12;
    if (at + size > data.length) break;
    const b = data.subarray(at, at + size);
    at += size;
    const baseOffset = Number(b.readBigInt64BE(0));
    if (b.readInt8(16) !== 2) throw new Error(`batch at ${baseOffset}: magic ${b.readInt8(16)}`);
    const crc = b.readUInt32BE(17);
    if (crc32c(b.subarray(21)) !== crc) throw new Error(`batch at ${baseOffset}: CRC mismatch`);
    const attributes = b.readInt16BE(21);
    const codec = attributes & 0x07;
    const control = (attributes & 0x20) !== 0;
    const baseTimestamp = Number(b.readBigInt64BE(27));
    const count = b.readInt32BE(57);
    const batch: FetchedBatch = {
      baseOffset, lastOffset: baseOffset + b.readInt32BE(23), partitionLeaderEpoch: b.readInt32BE(12),
      producerId: Number(b.readBigInt64BE(43)), codec, timestampType: (attributes >> 3) & 1, control, records: [],
    };
    out.push(batch);
    if (control) continue;
    if (codec !== 0) throw new Error(`batch at ${baseOffset}: compressed (codec ${codec}); these tests produce uncompressed batches`);
    const pos = { o: 61 };
    for (let i = 0; i < count; i++) {
      const len = varint(b, pos);
      const endOfRecord = pos.o + len;
      pos.o += 1; // attributes
      const tsDelta = varint(b, pos);
      const offDelta = varint(b, pos);
      const key = bytesOrNull(b, pos);
      const value = bytesOrNull(b, pos);
      const headers: [string, string | null][] = [];
      for (let h = varint(b, pos); h > 0; h--) headers.push([bytesOrNull(b, pos) ?? '', bytesOrNull(b, pos)]);
      if (pos.o !== endOfRecord) throw new Error(`batch at ${baseOffset}: record ${i} length ${len} does not match its fields`);
      batch.records.push({ offset: baseOffset + offDelta, timestamp: baseTimestamp + tsDelta, key, value, headers });
    }
    if (pos.o !== b.length) throw new Error(`batch at ${baseOffset}: ${b.length - pos.o} bytes after its ${count} records`);
  }
  return out;
}

// ------------------------------------------------------------------ checks

/** A promise whose rejection is handled later (awaited after other work): no unhandled rejection meanwhile. */
export function later<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {});
  return p;
}

/** Differences between what a consumer read and what was produced (each once, in order, all fields equal); [] = none. */
export function readProblems(read: FetchedRecord[], produced: Produced[], o: { fields?: boolean } = {}): string[] {
  const problems: string[] = [];
  const want = new Map(produced.map((p) => [p.offset, p]));
  const seen = new Set<number>();
  let last = -1;
  for (const r of read) {
    if (r.offset <= last) problems.push(`offset ${r.offset} after ${last} (duplicate or out of order)`);
    last = Math.max(last, r.offset);
    if (seen.has(r.offset)) continue;
    seen.add(r.offset);
    const p = want.get(r.offset);
    if (!p) { problems.push(`unexpected offset ${r.offset}`); continue; }
    if (r.value !== p.value) problems.push(`offset ${r.offset}: value ${r.value} != ${p.value}`);
    if (o.fields !== false) {
      if (r.key !== p.key) problems.push(`offset ${r.offset}: key ${r.key} != ${p.key}`);
      if (r.timestamp !== p.timestamp) problems.push(`offset ${r.offset}: timestamp ${r.timestamp} != ${p.timestamp}`);
      if (JSON.stringify(r.headers) !== JSON.stringify(p.headers)) problems.push(`offset ${r.offset}: headers ${JSON.stringify(r.headers)}`);
    }
  }
  for (const p of produced) if (!seen.has(p.offset)) problems.push(`missing offset ${p.offset}`);
  return problems;
}

// ------------------------------------------------------------------ Redis and lake views

export const metaKey = (topic: string, p: number): string => `rn:p:{${topic}/${p}}:meta`;
export const logKey = (topic: string, p: number): string => `rn:p:{${topic}/${p}}:log`;

/** The archiver's watermark of a partition (-1: none). */
export async function archived(lab: TieredLab, topic: string, p: number): Promise<number> {
  const v = await lab.client.hget(metaKey(topic, p), 'archived');
  return v === null ? -1 : Number(v);
}

/** Base offset of the first batch Redis still holds of the partition (-1: the stream is empty). */
export async function firstStoredOffset(lab: TieredLab, topic: string, p: number): Promise<number> {
  const first = await lab.client.xrange(logKey(topic, p), '-', '+', 'COUNT', 1);
  return first.length === 0 ? -1 : Number(first[0]![0].split('-')[0]);
}

export async function waitArchived(lab: TieredLab, topic: string, p: number, lastOffset: number, timeoutMs = 30_000): Promise<void> {
  await waitFor(`${topic}/${p} archived up to ${lastOffset}`, async () => (await archived(lab, topic, p)) >= lastOffset, { timeoutMs, intervalMs: 100 });
}

/** Waits until the Redis log start (EARLIEST_LOCAL) of a partition is at least `offset`. */
export async function waitLocalStart(c: WireClient, topic: string, p: number, offset: number, timeoutMs = 30_000): Promise<number> {
  let seen = -1;
  await waitFor(`${topic}/${p} local log start >= ${offset}`, async () => (seen = await offsetOf(c, topic, p, EARLIEST_LOCAL)) >= offset, { timeoutMs, intervalMs: 100 });
  return seen;
}

/** The data files of a table holding records of partition `p`, by first offset. */
export function filesOf(read: DeltaRead, p: number): DeltaRead['files'] {
  return read.files.filter((f) => f.actual.min_partition <= p && f.actual.max_partition >= p).sort((a, b) => a.actual.min_offset - b.actual.min_offset);
}

// ------------------------------------------------------------------ S3 fault proxy

/** none: forward; 500: answer InternalError; reset: drop the connection; stall: never answer (until the fault ends). */
export type S3Fault = 'none' | '500' | 'reset' | 'stall';

export interface S3Proxy {
  endpoint: string;
  /** Requests seen per fault in force when they came. */
  counts: Record<S3Fault, number>;
  set(fault: S3Fault): void;
  stop(): Promise<void>;
}

/** An HTTP proxy in front of moto; a stalled request's connection is dropped when the stall ends (as a dead peer's would be, eventually). */
export async function startS3Proxy(targetPort: number): Promise<S3Proxy> {
  let fault: S3Fault = 'none';
  const counts: Record<S3Fault, number> = { none: 0, '500': 0, reset: 0, stall: 0 };
  const stalled = new Set<http.IncomingMessage>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const now = fault;
      counts[now]++;
      if (now === '500') {
        res.writeHead(500, { 'content-type': 'application/xml' })
          .end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>injected</Message></Error>');
        return;
      }
      if (now === 'reset') { req.socket.destroy(); return; }
      if (now === 'stall') { stalled.add(req); req.socket.once('close', () => stalled.delete(req)); return; }
      const up = http.request({ host: HOST, port: targetPort, method: req.method, path: req.url, headers: req.headers }, (ur) => {
        res.writeHead(ur.statusCode ?? 502, ur.headers);
        ur.pipe(res);
      });
      up.on('error', () => { if (!res.headersSent) res.writeHead(502).end(); else res.destroy(); });
      up.end(Buffer.concat(chunks));
    });
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, HOST, r));
  return {
    endpoint: `http://${HOST}:${port}`,
    counts,
    set(f) {
      if (fault === 'stall' && f !== 'stall') for (const r of stalled) r.socket.destroy();
      fault = f;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

// ------------------------------------------------------------------ kcat consumer

export interface KcatConsumer {
  /** Records printed so far: partition, offset, value. */
  records(): Array<{ partition: number; offset: number; value: string }>;
  /** Exit code or signal once it has exited (null while it runs), and its stderr. */
  exited(): string | null;
  stderr(): string;
  /** SIGSTOP / SIGCONT. */
  signal(sig: 'SIGSTOP' | 'SIGCONT'): void;
  stop(): Promise<void>;
}

/**
 * kcat (librdkafka) reading one partition from offset 0 by assignment,
 * printing every record, going on when the broker is down (-E); `props`:
 * extra -X settings. `bytesPerSec`: its
 * output is read no faster (the pipe fills and kcat waits), so with a small
 * queued.max.messages.kbytes the consumer itself goes at that pace.
 */
export function kcatConsumer(bootstrap: string, topic: string, partition: number, props: Record<string, string> = {}, o: { bytesPerSec?: number } = {}): KcatConsumer {
  const x = Object.entries(props).flatMap(([k, v]) => ['-X', `${k}=${v}`]);
  const child = spawn('kcat', ['-b', bootstrap, '-C', '-t', topic, '-p', String(partition), '-o', 'beginning', '-E', '-u', '-q', '-f', 'R\t%p\t%o\t%s\n', ...x], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Array<{ partition: number; offset: number; value: string }> = [];
  let partial = '';
  let err = '';
  let exit: string | null = null;
  child.on('exit', (code, sig) => { exit = sig ?? String(code); });
  child.stderr!.on('data', (d: Buffer) => { err = (err + d.toString()).slice(-8000); });
  child.stdout!.on('data', (d: Buffer) => {
    const text = partial + d.toString();
    const cut = text.lastIndexOf('\n');
    partial = text.slice(cut + 1);
    for (const l of text.slice(0, cut + 1).split('\n')) {
      const f = l.split('\t');
      if (f[0] === 'R' && f.length >= 4) lines.push({ partition: Number(f[1]), offset: Number(f[2]), value: f.slice(3).join('\t') });
    }
    if (o.bytesPerSec) {
      child.stdout!.pause();
      setTimeout(() => child.stdout!.resume(), (d.length / o.bytesPerSec) * 1000);
    }
  });
  return {
    records: () => lines,
    exited: () => exit,
    stderr: () => err,
    signal: (sig) => { if (exit === null) child.kill(sig); },
    async stop() {
      if (exit !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGCONT');
      child.kill('SIGKILL');
      await gone;
    },
  };
}

/** Waits until kcat printed `n` records; fails at once if it exits. */
export async function waitKcat(k: KcatConsumer, n: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (k.records().length < n) {
    if (k.exited() !== null) throw new Error(`kcat exited (${k.exited()}) after ${k.records().length} records: ${k.stderr()}`);
    if (Date.now() > deadline) throw new Error(`kcat printed ${k.records().length} records of ${n} in ${timeoutMs} ms: ${k.stderr()}`);
    await sleep(20);
  }
}

/** Problems of a kcat read against what was produced: each offset once, in order, with its value. */
export function kcatProblems(read: Array<{ offset: number; value: string }>, produced: Produced[]): string[] {
  return readProblems(read.map((r) => ({ offset: r.offset, value: r.value, key: null, timestamp: 0, headers: [] })), produced, { fields: false });
}
