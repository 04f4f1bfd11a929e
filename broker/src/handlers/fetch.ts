import { Fetch } from '../protocol/messages/fetch.js';
import { ErrorCode, KafkaError, RunnelError } from '../errors.js';
import type { Partition } from '../log/partition.js';
import type { TopicRecord } from '../storage/log-store.js';
import type { BrokerServices, Handler } from './types.js';

interface FetchPartitionReq { partition: number; currentLeaderEpoch: number; fetchOffset: number; partitionMaxBytes: number }
interface FetchTopicReq { topic: string; topicId: string; partitions: FetchPartitionReq[] }

interface Slot {
  topicIdx: number;
  req: FetchPartitionReq;
  partition: Partition | null;
  out: Record<string, unknown>;
  bytes: number;
}

export const fetchHandler: Handler = {
  api: Fetch,
  minVersion: 4,
  maxVersion: 16,
  async handle(req, ctx, b) {
    const byId = ctx.apiVersion >= 13;
    const topics: Array<{ topic: string; topicId: string; partitions: Record<string, unknown>[] }> = [];
    const slots: Slot[] = [];
    for (const rt of req.topics as FetchTopicReq[]) {
      const t: TopicRecord | null = byId ? await b.log.topicById(rt.topicId) : await b.log.topic(rt.topic);
      const entry = { topic: t?.name ?? rt.topic, topicId: t?.id ?? rt.topicId, partitions: [] as Record<string, unknown>[] };
      topics.push(entry);
      for (const rp of rt.partitions) {
        const out: Record<string, unknown> = { partitionIndex: rp.partition, errorCode: ErrorCode.NONE, highWatermark: -1, lastStableOffset: -1, logStartOffset: -1, abortedTransactions: null, records: [] };
        entry.partitions.push(out);
        const slot: Slot = { topicIdx: topics.length - 1, req: rp, partition: null, out, bytes: 0 };
        if (!t) out.errorCode = byId ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        else if (rp.partition < 0 || rp.partition >= t.partitions) out.errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        else {
          try {
            slot.partition = await b.log.partition(t.name, rp.partition);
          } catch (e) {
            out.errorCode = storageCode(e);
          }
        }
        slots.push(slot);
      }
    }

    const maxBytes = req.maxBytes > 0 ? req.maxBytes : 2147483647;
    let total = await readAll(slots, maxBytes);
    const deadline = Date.now() + Math.max(0, req.maxWaitMs);
    while (total < Math.max(1, req.minBytes) && Date.now() < deadline && !slots.some((s) => s.out.errorCode !== ErrorCode.NONE)) {
      const woke = await waitForAppend(slots, deadline - Date.now());
      if (!woke) break;
      total = await readAll(slots, maxBytes);
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId: 0, responses: topics };
  },
};

async function readAll(slots: Slot[], maxBytes: number): Promise<number> {
  let budget = maxBytes;
  let total = 0;
  let first = true;
  const reads = slots.map(async (s) => {
    const p = s.partition;
    if (!p) return;
    try {
      await p.ensureLoaded();
    } catch (e) {
      s.out.errorCode = storageCode(e);
      return;
    }
    if (s.req.currentLeaderEpoch >= 0 && s.req.currentLeaderEpoch !== p.leaderEpoch) {
      s.out.errorCode = s.req.currentLeaderEpoch > p.leaderEpoch ? ErrorCode.UNKNOWN_LEADER_EPOCH : ErrorCode.FENCED_LEADER_EPOCH;
    }
  });
  await Promise.all(reads);
  // Byte budget is handed out in request order; the first non-empty partition always gets one whole batch (KIP-74).
  for (const s of slots) {
    const p = s.partition;
    if (!p || s.out.errorCode !== ErrorCode.NONE) continue;
    s.out.highWatermark = p.highWatermark;
    s.out.lastStableOffset = p.highWatermark;
    s.out.logStartOffset = p.logStartOffset;
    s.out.records = [];
    s.bytes = 0;
    if (budget <= 0 && !first) continue;
    const limit = Math.min(s.req.partitionMaxBytes, budget);
    try {
      const batches = await p.read(s.req.fetchOffset, first ? Math.max(limit, 1) : limit);
      if (batches.length === 0) continue;
      if (!first && batches[0]!.bytes.length > limit) continue;
      const bufs = batches.map((x) => x.bytes);
      s.out.records = bufs;
      for (const buf of bufs) s.bytes += buf.length;
      budget -= s.bytes;
      total += s.bytes;
      first = false;
    } catch (e) {
      s.out.errorCode = storageCode(e);
    }
  }
  return total;
}

function storageCode(e: unknown): number {
  if (e instanceof KafkaError) return e.code;
  if (e instanceof RunnelError && e.kind === 'STORAGE_UNAVAILABLE') return ErrorCode.KAFKA_STORAGE_ERROR;
  throw e;
}

function waitForAppend(slots: Slot[], ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const offs: Array<() => void> = [];
    const done = (woke: boolean): void => {
      clearTimeout(timer);
      for (const off of offs) off();
      resolve(woke);
    };
    const timer = setTimeout(() => done(false), ms);
    for (const s of slots) if (s.partition) offs.push(s.partition.onAppend(() => done(true)));
  });
}
