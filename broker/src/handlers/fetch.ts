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

/**
 * Reads every partition at once (one Redis round trip in parallel, not one
 * per partition in turn), then hands out the byte budget in request order:
 * the first non-empty partition always keeps one whole batch (KIP-74), later
 * ones keep what still fits.
 */
async function readAll(slots: Slot[], maxBytes: number): Promise<number> {
  const read = await Promise.all(slots.map(async (s) => {
    const p = s.partition;
    if (!p) return [];
    try {
      await p.ensureLoaded();
      if (s.req.currentLeaderEpoch >= 0 && s.req.currentLeaderEpoch !== p.leaderEpoch) {
        s.out.errorCode = s.req.currentLeaderEpoch > p.leaderEpoch ? ErrorCode.UNKNOWN_LEADER_EPOCH : ErrorCode.FENCED_LEADER_EPOCH;
        return [];
      }
      return (await p.read(s.req.fetchOffset, Math.max(1, Math.min(s.req.partitionMaxBytes, maxBytes)))).map((x) => x.bytes);
    } catch (e) {
      s.out.errorCode = storageCode(e);
      return [];
    }
  }));
  let budget = maxBytes;
  let total = 0;
  slots.forEach((s, i) => {
    const p = s.partition;
    if (!p || s.out.errorCode !== ErrorCode.NONE) return;
    // Reported after the read, so no record handed out lies above the high watermark.
    s.out.highWatermark = p.highWatermark;
    s.out.lastStableOffset = p.highWatermark;
    s.out.logStartOffset = p.logStartOffset;
    const kept: Buffer[] = [];
    s.bytes = 0;
    for (const buf of read[i]!) {
      if (s.bytes + buf.length > budget && (total > 0 || kept.length > 0)) break;
      kept.push(buf);
      s.bytes += buf.length;
    }
    s.out.records = kept;
    budget -= s.bytes;
    total += s.bytes;
  });
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
