// Request and traffic metrics from real Produce/Fetch handler results (in-memory
// store behind the real LogManager): what counts as bytes and records in/out,
// and which error a request is counted under.
import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { produceHandler } from '../../../broker/src/handlers/produce.js';
import { fetchHandler } from '../../../broker/src/handlers/fetch.js';
import type { BrokerServices, RequestContext } from '../../../broker/src/handlers/support/types.js';
import { newSession } from '../../../broker/src/security/session.js';
import { Produce } from '../../../broker/src/protocol/messages/produce.js';
import { Fetch } from '../../../broker/src/protocol/messages/fetch.js';
import { RequestMetrics, firstError, recordsIn } from '../../../broker/src/http/request-metrics.js';
import { unitServices } from '../support/services.js';
import { buildBatch } from '../../helpers/batches.js';
import { wireRequest } from '../support/requests.js';

function services(): BrokerServices {
  const b = unitServices();
  b.config.autoCreateTopics = false; // a topic that does not exist is an error to count
  return b;
}

const ctx = (apiVersion: number): RequestContext => ({ apiKey: 0, apiVersion, correlationId: 1, clientId: 't', session: newSession(1, '127.0.0.1') });
const batch = (n: number) => buildBatch(Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`v${i}`) })));

async function values(r: Registry, name: string): Promise<Array<{ labels: Record<string, string | number>; value: number }>> {
  const m = (await r.getMetricsAsJSON()).find((x) => x.name === name);
  return (m?.values ?? []) as Array<{ labels: Record<string, string | number>; value: number }>;
}

describe('request metrics', () => {
  it('recordsIn reads the recordCount of every batch of a run; firstError finds the first non-zero code at any level', () => {
    const a = batch(3);
    const b = batch(2);
    expect(recordsIn(a)).toBe(3);
    expect(recordsIn(Buffer.concat([a, b]))).toBe(5);
    expect(recordsIn(Buffer.alloc(10))).toBe(0);
    expect(firstError({ errorCode: 0, responses: [{ partitionResponses: [{ errorCode: 0 }, { errorCode: 3 }] }] })).toBe(3);
    expect(firstError({ errorCode: 7, responses: [{ partitionResponses: [{ errorCode: 3 }] }] })).toBe(7);
    expect(firstError({ responses: [{ partitionResponses: [{ errorCode: 0, records: [a] }] }] })).toBe(0);
  });

  it('counts Produce bytes/records of accepted partitions only, Fetch bytes/records returned, requests by API and error, latency', async () => {
    const b = services();
    await b.log.createTopic('t', 2, {});
    const r = new Registry();
    const m = new RequestMetrics(r);
    const one = batch(3);
    const two = batch(2);
    const req = { transactionalId: null, acks: 1, timeoutMs: 1000, topicData: [
      { name: 't', partitionData: [{ index: 0, records: one }, { index: 1, records: two }, { index: 7, records: batch(4) }] },
      { name: 'missing', partitionData: [{ index: 0, records: batch(5) }] },
    ] };
    const res = await produceHandler.handle(req, ctx(9), b);
    expect(res!.responses[0].partitionResponses.map((p: { errorCode: number }) => p.errorCode)).toEqual([0, 0, 3]);
    m.observe(Produce, req, res, 0.002);
    // acks=0: no response; what was sent is counted
    const zero = { ...req, acks: 0, topicData: [{ name: 't', partitionData: [{ index: 0, records: batch(1) }] }] };
    m.observe(Produce, zero, await produceHandler.handle(zero, ctx(9), b), 0.001);
    expect(await values(r, 'runnel_topic_records_in_total')).toEqual([{ labels: { topic: 't' }, value: 6 }]);
    expect((await values(r, 'runnel_topic_bytes_in_total'))[0]!.value).toBe(one.length + two.length + batch(1).length);

    const freq = wireRequest(Fetch, 11, { replicaId: -1, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
      topics: [{ topic: 't', topicId: '', partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
      forgottenTopicsData: [], rackId: '' });
    const fres = await fetchHandler.handle(freq, ctx(11), b);
    m.observe(Fetch, freq, fres, 0.003);
    expect(await values(r, 'runnel_topic_records_out_total')).toEqual([{ labels: { topic: 't' }, value: 4 }]);
    expect((await values(r, 'runnel_topic_bytes_out_total'))[0]!.value).toBe(one.length + batch(1).length);

    const requests = await values(r, 'runnel_requests_total');
    expect(requests.sort((x, y) => String(x.labels.error).localeCompare(String(y.labels.error)))).toEqual([
      { labels: { api: 'Produce', error: 'NONE' }, value: 1 },
      { labels: { api: 'Fetch', error: 'NONE' }, value: 1 },
      { labels: { api: 'Produce', error: 'UNKNOWN_TOPIC_OR_PARTITION' }, value: 1 },
    ].sort((x, y) => x.labels.error.localeCompare(y.labels.error)));
    const hist = await values(r, 'runnel_request_duration_seconds');
    expect(hist.find((v) => v.labels.api === 'Produce' && (v as { metricName?: string }).metricName === 'runnel_request_duration_seconds_count')?.value).toBe(2);
    expect(hist.find((v) => v.labels.api === 'Produce' && v.labels.le === 0.0025)?.value).toBe(2);
    expect(hist.find((v) => v.labels.api === 'Produce' && v.labels.le === 0.001)?.value).toBe(1);
  });
});
