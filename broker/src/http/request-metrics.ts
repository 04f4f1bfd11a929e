// Request and traffic metrics of the broker, fed by the dispatcher once per
// request (dispatch.ts): requests by API and error, their latency, and bytes
// and records in (Produce) and out (Fetch) per topic. The hot path allocates
// nothing once a series exists: counters are plain numbers (CellCounter) kept
// per API / error / topic and read by prom-client at scrape time; the latency
// histogram gets a cached label object.
import { Histogram, type Registry } from 'prom-client';
import { CellCounter, type CounterCell } from '../../../common/metrics/registry.js';
import { At, LOG_OVERHEAD, BATCH_HEADER_SIZE } from '../../../common/record-batch/layout.js';
import { codeName } from '../../../common/errors.js';
import type { ApiDef } from '../protocol/schema.js';
import type { RequestOf, ResponseOf } from '../protocol/typed.js';
import { Produce } from '../protocol/messages/produce.js';
import { Fetch } from '../protocol/messages/fetch.js';

/** What the dispatcher reports of each answered (or, acks=0, unanswered) request. */
export interface RequestObserver {
  /** `req` is what decode(api.request) produced, `res` the handler's answer to it. */
  observe(api: ApiDef, req: Record<string, unknown>, res: Record<string, unknown> | null, seconds: number): void;
}

/** A request and its answer as the observer gets them. */
interface Seen { req: Record<string, unknown>; res: Record<string, unknown> | null }
/** A request decoded by definition A and its handler's answer. */
interface SeenOf<A extends ApiDef> extends Seen { req: RequestOf<A>; res: ResponseOf<A> | null }

/** Whether the exchange is one of `def`'s: the dispatcher decodes with, and answers through, the handler's own definition object. */
function isOf<A extends ApiDef>(api: ApiDef, def: A, _seen: Seen): _seen is SeenOf<A> {
  return api === def;
}

/** Records in a run of v2 batches written back to back (their recordCount fields). */
export function recordsIn(buf: Uint8Array): number {
  let n = 0;
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  for (let at = 0; at + BATCH_HEADER_SIZE <= buf.byteLength;) {
    n += Math.max(0, view.getInt32(at + At.RECORD_COUNT));
    const len = view.getInt32(at + At.LENGTH);
    if (len <= 0) break;
    at += LOG_OVERHEAD + len;
  }
  return n;
}

/**
 * The first non-zero `errorCode` of a response, top level first, then the
 * entries of its lists (per topic, per partition); 0 when none. Records
 * (Buffers) are not walked.
 */
export function firstError(o: object, depth = 0): number {
  if (!('errorCode' in o)) return firstErrorInLists(o, depth);
  const top = o.errorCode;
  if (typeof top === 'number' && top !== 0) return top;
  return firstErrorInLists(o, depth);
}

function firstErrorInLists(o: object, depth: number): number {
  if (depth >= 3) return 0;
  for (const v of Object.values(o)) {
    if (!Array.isArray(v)) continue;
    for (const e of v) {
      if (e === null || typeof e !== 'object' || e instanceof Uint8Array) break;
      const c = firstError(e, depth + 1);
      if (c !== 0) return c;
    }
  }
  return 0;
}

/** Kafka's request latency buckets are in ms; these cover 0.5 ms to 10 s. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type TopicCounters = { bytes: CounterCell; records: CounterCell };

export class RequestMetrics implements RequestObserver {
  private readonly requests: CellCounter<'api' | 'error'>;
  private readonly duration: Histogram<'api'>;
  private readonly bytesIn: CellCounter<'topic'>;
  private readonly recordsIn: CellCounter<'topic'>;
  private readonly bytesOut: CellCounter<'topic'>;
  private readonly recordsOut: CellCounter<'topic'>;
  private readonly apiLabels = new Map<number, { api: { api: string }; byError: Map<number, CounterCell> }>();
  private readonly inByTopic = new Map<string, TopicCounters>();
  private readonly outByTopic = new Map<string, TopicCounters>();

  constructor(registry: Registry) {
    const registers = [registry];
    this.requests = new CellCounter(registry, 'runnel_requests_total', 'Requests answered, by API and the first error code of the response (NONE when none)', ['api', 'error']);
    this.duration = new Histogram({ name: 'runnel_request_duration_seconds', help: 'Time from a request read off the socket to its response encoded, by API', labelNames: ['api'], buckets: LATENCY_BUCKETS, registers });
    this.bytesIn = new CellCounter(registry, 'runnel_topic_bytes_in_total', 'Record batch bytes appended by Produce, by topic', ['topic']);
    this.recordsIn = new CellCounter(registry, 'runnel_topic_records_in_total', 'Records appended by Produce, by topic', ['topic']);
    this.bytesOut = new CellCounter(registry, 'runnel_topic_bytes_out_total', 'Record batch bytes returned by Fetch, by topic', ['topic']);
    this.recordsOut = new CellCounter(registry, 'runnel_topic_records_out_total', 'Records returned by Fetch (whole batches), by topic', ['topic']);
  }

  observe(api: ApiDef, req: Record<string, unknown>, res: Record<string, unknown> | null, seconds: number): void {
    let labels = this.apiLabels.get(api.apiKey);
    if (!labels) {
      labels = { api: { api: api.name }, byError: new Map() };
      this.apiLabels.set(api.apiKey, labels);
    }
    const code = res ? firstError(res) : 0;
    let count = labels.byError.get(code);
    if (!count) {
      count = this.requests.cell({ api: api.name, error: codeName(code) });
      labels.byError.set(code, count);
    }
    count.value++;
    this.duration.observe(labels.api, seconds);
    const seen = { req, res };
    if (isOf(api, Produce, seen)) this.produced(seen.req, seen.res);
    else if (isOf(api, Fetch, seen) && seen.res) this.fetched(seen.res);
  }

  private counters(map: Map<string, TopicCounters>, topic: string, bytes: CellCounter<'topic'>, records: CellCounter<'topic'>): TopicCounters {
    let c = map.get(topic);
    if (!c) {
      c = { bytes: bytes.cell({ topic }), records: records.cell({ topic }) };
      map.set(topic, c);
    }
    return c;
  }

  /** Produce: the batches of every partition answered without error (all of them with acks=0, unanswered). */
  private produced(req: RequestOf<typeof Produce>, res: ResponseOf<typeof Produce> | null): void {
    const answers = res?.responses;
    const topics = req.topicData;
    for (let ti = 0; ti < topics.length; ti++) {
      const td = topics[ti]!;
      const answer = answers ? (answers[ti]?.name === td.name ? answers[ti] : answers.find((a) => a.name === td.name)) : undefined;
      let bytes = 0;
      let records = 0;
      for (let pi = 0; pi < td.partitionData.length; pi++) {
        const pd = td.partitionData[pi]!;
        if (!pd.records) continue;
        if (answers) {
          const parts = answer?.partitionResponses;
          const pr = parts?.[pi]?.index === pd.index ? parts[pi] : parts?.find((p) => p.index === pd.index);
          if (!pr || pr.errorCode !== 0) continue;
        }
        bytes += pd.records.byteLength;
        records += recordsIn(pd.records);
      }
      if (bytes === 0) continue;
      const c = this.counters(this.inByTopic, td.name, this.bytesIn, this.recordsIn);
      c.bytes.value += bytes;
      c.records.value += records;
    }
  }

  /** Fetch: every batch returned (the topic name is set on responses of every version). */
  private fetched(res: ResponseOf<typeof Fetch>): void {
    for (const t of res.responses) {
      let bytes = 0;
      let records = 0;
      for (const p of t.partitions) {
        const r = p.records;
        if (!r) continue;
        if (r instanceof Uint8Array) {
          bytes += r.byteLength;
          records += recordsIn(r);
        } else {
          for (const b of r) {
            bytes += b.byteLength;
            records += recordsIn(b);
          }
        }
      }
      if (bytes === 0 || !t.topic) continue;
      const c = this.counters(this.outByTopic, t.topic, this.bytesOut, this.recordsOut);
      c.bytes.value += bytes;
      c.records.value += records;
    }
  }
}
