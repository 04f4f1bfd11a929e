// The inter-broker client (server/broker-client.ts, the transactions'
// BrokerClient port): requests to a live listener are answered and matched
// by correlation id while pipelined, flexible responses included; responses
// cut anywhere by TCP are reassembled; a broker that does not answer in time
// or cannot be reached fails the request, and the next one reconnects.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { KafkaBrokerClient } from '../../../broker/src/server/broker-client.js';
import { startListeners, type RunningListeners } from '../../../broker/src/server/listeners.js';
import { Framer } from '../../../broker/src/server/framer.js';
import { Dispatcher } from '../../../broker/src/dispatch.js';
import { buildHandlers } from '../../../broker/src/handlers/support/registry.js';
import { WriteTxnMarkers } from '../../../broker/src/protocol/messages/write-txn-markers.js';
import { AddPartitionsToTxn } from '../../../broker/src/protocol/messages/add-partitions-to-txn.js';
import { encode } from '../../../broker/src/protocol/codec.js';
import { Writer } from '../../../broker/src/protocol/writer.js';
import { ErrorCode } from '../../../common/errors.js';
import { createLogger } from '../../../common/logger/logger.js';
import { unitServices } from '../support/services.js';

const logger = createLogger('error', 'test');
const closing: Array<() => unknown> = [];
afterEach(async () => { for (const c of closing.splice(0).reverse()) await c(); });

const marker = (topic: string) => ({
  markers: [{ producerId: 5, producerEpoch: 0, transactionResult: true, coordinatorEpoch: 0, topics: [{ name: topic, partitionIndexes: [0] }] }],
});

async function liveBroker(): Promise<{ host: string; port: number }> {
  const services = unitServices();
  const listeners: RunningListeners = await startListeners(services.config, logger);
  closing.push(() => listeners.close());
  listeners.setDispatcher(new Dispatcher(buildHandlers(), services));
  return { host: '127.0.0.1', port: listeners.ports[0]! };
}

/** A raw server: hands each request's correlation id and socket to `onRequest`. */
async function rawServer(onRequest: (cid: number, s: net.Socket) => void): Promise<{ host: string; port: number; server: net.Server }> {
  const server = net.createServer((s) => {
    const framer = new Framer(1 << 20);
    s.on('data', (d) => {
      const got = framer.push(typeof d === 'string' ? Buffer.from(d) : d);
      if (got.kind === 'frames') for (const f of got.frames) onRequest(f.readInt32BE(4), s);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closing.push(() => new Promise((r) => server.close(r)));
  return { host: '127.0.0.1', port: (server.address() as net.AddressInfo).port, server };
}

/** A WriteTxnMarkers v1 (flexible: response header v1) response frame naming `topic`. */
function markersResponse(cid: number, topic: string): Buffer {
  const w = new Writer();
  w.int32(0).int32(cid).uvarint(0);
  encode(WriteTxnMarkers.response, 1, { markers: [{ producerId: 5, topics: [{ name: topic, partitions: [{ partitionIndex: 0, errorCode: ErrorCode.NONE }] }] }] }, w);
  const out = w.toBuffer();
  out.writeInt32BE(out.length - 4, 0);
  return out;
}

describe('KafkaBrokerClient', () => {
  it('pipelines requests to a listener and matches each answer to its request', async () => {
    const addr = await liveBroker();
    const client = new KafkaBrokerClient();
    closing.push(() => client.close());
    const topics = Array.from({ length: 8 }, (_, i) => `missing-${i}`);
    const answers = await Promise.all(topics.map((t) => client.request(addr, WriteTxnMarkers, 1, marker(t))));
    expect(answers.map((a) => a.markers[0]!.topics[0]!.name)).toEqual(topics);
    expect(answers.every((a) => a.markers[0]!.topics[0]!.partitions[0]!.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)).toBe(true);
  });

  it('reads a flexible response (header v1): AddPartitionsToTxn v4 verification', async () => {
    const addr = await liveBroker();
    const client = new KafkaBrokerClient();
    closing.push(() => client.close());
    const res = await client.request(addr, AddPartitionsToTxn, 4, {
      transactions: [{ transactionalId: 'tx', producerId: 1, producerEpoch: 0, verifyOnly: true, topics: [{ name: 't', partitions: [0] }] }],
    });
    expect(res.errorCode).toBe(ErrorCode.NONE);
    expect(res.resultsByTransaction?.[0]?.transactionalId).toBe('tx');
    expect(res.resultsByTransaction?.[0]?.topicResults?.[0]?.resultsByPartition?.[0]?.partitionErrorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  });

  it('reassembles responses split across reads and answered out of order', async () => {
    const held: Array<{ cid: number; s: net.Socket }> = [];
    const addr = await rawServer((cid, s) => {
      held.push({ cid, s });
      if (held.length < 2) return;
      // The second request is answered first, one byte per write.
      const bytes = Buffer.concat([markersResponse(held[1]!.cid, 'second'), markersResponse(held[0]!.cid, 'first')]);
      const drip = (i: number): void => { if (i < bytes.length) s.write(bytes.subarray(i, i + 1), () => drip(i + 1)); };
      drip(0);
    });
    const client = new KafkaBrokerClient();
    closing.push(() => client.close());
    const [a, b] = await Promise.all([client.request(addr, WriteTxnMarkers, 1, marker('first')), client.request(addr, WriteTxnMarkers, 1, marker('second'))]);
    expect(a.markers[0]!.topics[0]!.name).toBe('first');
    expect(b.markers[0]!.topics[0]!.name).toBe('second');
  });

  it('fails a request that is not answered in time, and one to an unreachable broker; the next request reconnects', async () => {
    let answer = false;
    const addr = await rawServer((cid, s) => { if (answer) s.write(markersResponse(cid, 'late')); });
    const client = new KafkaBrokerClient(100);
    closing.push(() => client.close());
    await expect(client.request(addr, WriteTxnMarkers, 1, marker('x'))).rejects.toThrow('WriteTxnMarkers timed out');
    answer = true;
    expect((await client.request(addr, WriteTxnMarkers, 1, marker('late'))).markers[0]!.topics[0]!.name).toBe('late');
    // Nothing listens on a port just released.
    const gone = await rawServer(() => undefined);
    await new Promise((r) => gone.server.close(r));
    await expect(client.request(gone, WriteTxnMarkers, 1, marker('x'))).rejects.toThrow();
  });

  it('close() fails the requests waiting for an answer', async () => {
    const addr = await rawServer(() => undefined);
    const client = new KafkaBrokerClient();
    const pending = client.request(addr, WriteTxnMarkers, 1, marker('x'));
    await new Promise((r) => setTimeout(r, 50));
    client.close();
    await expect(pending).rejects.toThrow('client closed');
  });
});
