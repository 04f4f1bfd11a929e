// Shared by the limits tests: memory of a process and small wire helpers.
import fs from 'node:fs';
import { Fetch } from '../../../broker/src/protocol/messages/fetch.js';
import { Metadata } from '../../../broker/src/protocol/messages/metadata.js';
import { Produce } from '../../../broker/src/protocol/messages/produce.js';
import { buildBatch } from '../../helpers/batches.js';
import { WireClient } from '../../helpers/wire.js';

export const MiB = 1024 * 1024;

/** Resident set size of a process in bytes (VmRSS of /proc/<pid>/status). */
export function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

/** Samples the RSS of `pid` every `everyMs` until stop() is called; returns the peak. */
export function rssSampler(pid: number, everyMs = 20): { stop(): number } {
  let peak = rssBytes(pid);
  const t = setInterval(() => {
    try { peak = Math.max(peak, rssBytes(pid)); } catch { /* exited */ }
  }, everyMs);
  return { stop: () => { clearInterval(t); try { peak = Math.max(peak, rssBytes(pid)); } catch { /* exited */ } return peak; } };
}

/** Metadata v12 for one topic; returns the topic entry (errorCode, partitions). */
export async function topicMetadata(c: WireClient, topic: string, allowAutoTopicCreation = false): Promise<Record<string, any>> {
  const r = await c.request(Metadata, 12, { topics: [{ topicId: '00000000-0000-0000-0000-000000000000', name: topic }], allowAutoTopicCreation, includeTopicAuthorizedOperations: false });
  return r.topics[0];
}

/** Produce v9 (acks=1) of `count` batches of one `valueBytes` record each to partition 0; returns the error codes. */
export async function produceValues(c: WireClient, topic: string, count: number, valueBytes: number): Promise<number[]> {
  const codes: number[] = [];
  for (let i = 0; i < count; i++) {
    const records = buildBatch([{ key: null, value: Buffer.alloc(valueBytes, i % 251) }]);
    const r = await c.request(Produce, 9, { transactionalId: null, acks: 1, timeoutMs: 10_000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] });
    codes.push(r.responses[0].partitionResponses[0].errorCode);
  }
  return codes;
}

/** A Fetch v12 frame (topic names) naming partition 0 of `topic` `times` times, from offset 0. */
export function fetchFrame(topic: string, times: number, correlationId: number, maxBytes = 52428800, partitionMaxBytes = 52428800): Buffer {
  const partitions = Array.from({ length: times }, () => ({ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes }));
  return WireClient.frame(Fetch, 12, {
    replicaId: -1, maxWaitMs: 0, minBytes: 1, maxBytes, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
    topics: [{ topic, topicId: '00000000-0000-0000-0000-000000000000', partitions }], forgottenTopicsData: [], rackId: '',
  }, correlationId);
}
