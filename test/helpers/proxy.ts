// A TCP proxy between Kafka clients and a broker that can lose responses:
// every `dropEvery`-th Produce response is swallowed and both sockets are
// closed, so the write happened but the client never hears about it.
import net from 'node:net';
import { HOST } from './procs.js';

export interface FaultProxy {
  port: number;
  droppedResponses: number;
  close(): Promise<void>;
}

const PRODUCE = 0;

export async function startFaultProxy(upstreamPort: number, opts: { dropEvery: number; maxDrops?: number }): Promise<FaultProxy> {
  let produceResponses = 0;
  const state = { droppedResponses: 0 };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: HOST, port: upstreamPort });
    sockets.add(client);
    sockets.add(upstream);
    const produceIds = new Set<number>();
    let inBuf = Buffer.alloc(0);
    let outBuf = Buffer.alloc(0);
    const kill = (): void => { client.destroy(); upstream.destroy(); };
    client.on('error', kill);
    upstream.on('error', kill);
    client.on('close', () => { upstream.destroy(); sockets.delete(client); });
    upstream.on('close', () => { client.destroy(); sockets.delete(upstream); });
    client.on('data', (d) => {
      inBuf = Buffer.concat([inBuf, typeof d === 'string' ? Buffer.from(d) : d]);
      while (inBuf.length >= 4 && inBuf.length >= 4 + inBuf.readInt32BE(0)) {
        const n = inBuf.readInt32BE(0);
        const frame = inBuf.subarray(0, 4 + n);
        if (frame.readInt16BE(4) === PRODUCE) produceIds.add(frame.readInt32BE(8));
        upstream.write(frame);
        inBuf = inBuf.subarray(4 + n);
      }
    });
    upstream.on('data', (d) => {
      outBuf = Buffer.concat([outBuf, typeof d === 'string' ? Buffer.from(d) : d]);
      while (outBuf.length >= 4 && outBuf.length >= 4 + outBuf.readInt32BE(0)) {
        const n = outBuf.readInt32BE(0);
        const frame = outBuf.subarray(0, 4 + n);
        outBuf = outBuf.subarray(4 + n);
        const cid = frame.readInt32BE(4);
        if (produceIds.delete(cid)) {
          produceResponses++;
          const budget = opts.maxDrops === undefined || state.droppedResponses < opts.maxDrops;
          if (budget && produceResponses % opts.dropEvery === 0) {
            state.droppedResponses++;
            kill();
            return;
          }
        }
        client.write(frame);
      }
    });
  });
  await new Promise<void>((res) => server.listen(0, HOST, () => res()));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    get droppedResponses() { return state.droppedResponses; },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
}
