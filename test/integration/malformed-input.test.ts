// Fuzz-style: malformed, truncated and hostile requests for every supported API
// and version. Each bad connection is closed or answered; the broker stays up
// and a concurrent well-behaved client keeps producing and consuming.
import { describe, expect, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { ALL_APIS } from '../../broker/src/protocol/messages/index.js';
import { parseVersions } from '../../broker/src/protocol/versions.js';
import { WireClient } from '../helpers/wire.js';
import { apiVersionsProbe } from '../helpers/runnel.js';
import { useBroker } from './broker-fixture.js';

const fx = useBroker();

function mulberry32(seed: number): () => number {
  return () => {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A request frame whose body is random or a truncated/mutated version of an empty request. */
function badFrames(rand: () => number): Buffer[] {
  const out: Buffer[] = [];
  for (const api of ALL_APIS) {
    const range = parseVersions(api.request.validVersions);
    for (let v = range.min; v <= range.max; v++) {
      const good = WireClient.frame(api, v, {}, 7);
      // truncated: keep the header, cut the body, fix the length prefix
      const cut = Buffer.from(good.subarray(0, Math.max(14, Math.floor(good.length * rand()))));
      cut.writeInt32BE(cut.length - 4, 0);
      out.push(cut);
      // mutated: flip random body bytes (array/string lengths become hostile)
      const mut = Buffer.from(good);
      for (let i = 0; i < 4; i++) {
        const at = 12 + Math.floor(rand() * Math.max(1, mut.length - 12));
        if (at < mut.length) mut[at] = Math.floor(rand() * 256);
      }
      out.push(mut);
      // random body after a valid header prefix
      const junk = Buffer.alloc(8 + Math.floor(rand() * 64));
      for (let i = 0; i < junk.length; i++) junk[i] = Math.floor(rand() * 256);
      const hdr = Buffer.alloc(12);
      hdr.writeInt32BE(8 + junk.length, 0);
      hdr.writeInt16BE(api.apiKey, 4);
      hdr.writeInt16BE(v, 6);
      hdr.writeInt32BE(9, 8);
      out.push(Buffer.concat([hdr, junk]));
    }
  }
  return out;
}

describe('malformed input', () => {
  it('survives garbage for every API and version while a good client keeps working', async () => {
    const kafka = new Kafka({ brokers: [fx.broker.bootstrap], clientId: 'good', logLevel: logLevel.NOTHING });
    const producer = kafka.producer({ allowAutoTopicCreation: true });
    await producer.connect();
    let sent = 0;
    let stop = false;
    const goodLoop = (async () => {
      while (!stop) {
        await producer.send({ topic: 'fuzz-good', messages: [{ key: `k${sent}`, value: `v${sent}` }] });
        sent++;
      }
    })();

    const rand = mulberry32(1234);
    const frames = badFrames(rand);
    // One bad frame per connection (a bad frame closes its connection), 25 connections at a time.
    let answeredOrClosed = 0;
    for (let i = 0; i < frames.length; i += 25) {
      await Promise.all(frames.slice(i, i + 25).map(async (f) => {
        const c = await WireClient.connect(fx.broker.port);
        c.writeRaw(f);
        await c.closedWithin(200);
        c.close();
        answeredOrClosed++;
      }));
    }
    stop = true;
    await goodLoop;
    await producer.disconnect();
    expect(answeredOrClosed).toBe(frames.length);
    expect(sent).toBeGreaterThan(10);
    expect((await apiVersionsProbe(fx.broker.port)).errorCode).toBe(0);
    expect(fx.broker.proc().exitCode ?? null).toBeNull();
  });

  it('closes a connection whose length prefix exceeds socket.request.max.bytes, others unaffected', async () => {
    const hostile = await WireClient.connect(fx.broker.port);
    const prefix = Buffer.alloc(4);
    prefix.writeInt32BE(0x7fffffff, 0);
    hostile.writeRaw(prefix);
    expect(await hostile.closedWithin(2000)).toBe(true);

    const negative = await WireClient.connect(fx.broker.port);
    prefix.writeInt32BE(-5, 0);
    negative.writeRaw(prefix);
    expect(await negative.closedWithin(2000)).toBe(true);

    expect((await apiVersionsProbe(fx.broker.port)).errorCode).toBe(0);
  });

  it('answers an unknown API key and an unsupported version instead of dropping the connection', async () => {
    const c = await WireClient.connect(fx.broker.port);
    const frame = (apiKey: number, version: number, cid: number): Buffer => {
      const b = Buffer.alloc(4 + 10);
      b.writeInt32BE(10, 0);
      b.writeInt16BE(apiKey, 4);
      b.writeInt16BE(version, 6);
      b.writeInt32BE(cid, 8);
      b.writeInt16BE(-1, 12);
      return b;
    };
    const unknown = await c.send(frame(999, 0, 41), 41);
    expect(unknown.readInt32BE(0)).toBe(41);
    expect(unknown.readInt16BE(4)).toBe(35); // UNSUPPORTED_VERSION
    const tooNew = await c.send(frame(3, 99, 42), 42);
    expect(tooNew.readInt32BE(0)).toBe(42);
    // ApiVersions with a future version gets a v0 answer with UNSUPPORTED_VERSION and our ranges (KIP-511)
    const av = await c.send(frame(18, 99, 43), 43);
    expect(av.readInt16BE(4)).toBe(35);
    expect(av.readInt32BE(6)).toBeGreaterThan(10);
    expect(c.closed).toBe(false);
    c.close();
  });
});
