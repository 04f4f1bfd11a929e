// Connection limits over real loopback sockets, with a stub dispatcher whose
// answers the test controls.
import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Connection, type ConnectionLimits } from '../../../broker/src/server/connection.js';
import { RequestBytesPool } from '../../../broker/src/server/request-pool.js';
import { newSession } from '../../../broker/src/security/session.js';
import type { Dispatcher, DispatchResult } from '../../../broker/src/dispatch.js';
import { createLogger } from '../../../common/logger/logger.js';

const LIMITS: ConnectionLimits = { maxFrameBytes: 1 << 20, maxUnsentBytes: 64 * 1024, idleMs: 60_000, partialRequestTimeoutMs: 60_000 };
const logger = createLogger('error', 'test');

/** A request frame: api key, version 0, correlation id, then `pad` body bytes. */
function frame(apiKey: number, cid: number, pad = 0): Buffer {
  const b = Buffer.alloc(4 + 8 + pad);
  b.writeInt32BE(8 + pad, 0);
  b.writeInt16BE(apiKey, 4);
  b.writeInt32BE(cid, 8);
  return b;
}

function response(cid: number, bytes: number): DispatchResult {
  const b = Buffer.alloc(4 + bytes);
  b.writeInt32BE(bytes, 0);
  b.writeInt32BE(cid, 4);
  return { kind: 'response', chunks: [b], apiKey: 0 };
}

interface Harness { conn: Connection; client: net.Socket; pool: RequestBytesPool; server: net.Server }
const open: Harness[] = [];

async function harness(dispatch: (frame: Buffer) => Promise<DispatchResult>, limits = LIMITS, pool = new RequestBytesPool(0)): Promise<Harness> {
  const stub = { dispatch: (f: Buffer) => dispatch(f), saslFor: () => null } as unknown as Dispatcher;
  let conn!: Connection;
  const server = net.createServer((s) => { conn = new Connection(s, newSession(1, s.remoteAddress ?? ''), stub, logger, limits, pool); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  client.on('error', () => undefined);
  await new Promise<void>((r) => client.once('connect', () => r()));
  while (!conn) await sleep(5);
  const h = { conn, client, pool, server };
  open.push(h);
  return h;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const closed = (s: net.Socket, ms: number) => new Promise<boolean>((r) => {
  if (s.destroyed) return r(true);
  const t = setTimeout(() => r(false), ms);
  s.once('close', () => { clearTimeout(t); r(true); });
});

afterEach(() => {
  for (const h of open.splice(0)) {
    h.client.destroy();
    h.conn.close();
    h.server.close();
  }
});

describe('Connection', () => {
  it('dispatches a Fetch only when nothing is in flight and the client has read what was sent', async () => {
    let fetchesInFlight = 0;
    let maxFetchesInFlight = 0;
    let dispatched = 0;
    const h = await harness(async (f) => {
      dispatched++;
      fetchesInFlight++;
      maxFetchesInFlight = Math.max(maxFetchesInFlight, fetchesInFlight);
      await sleep(1);
      fetchesInFlight--;
      return response(f.readInt32BE(4), 4 << 20); // 4 MiB per answer
    });
    h.client.pause(); // a client that never reads
    h.client.write(Buffer.concat(Array.from({ length: 50 }, (_, i) => frame(1, i))));
    await sleep(500);
    expect(maxFetchesInFlight).toBe(1);
    // One answer fills the socket; no further fetch is read off it while the client does not read.
    expect(dispatched).toBeLessThanOrEqual(2);
    // Reading resumes everything, in order.
    let got = 0;
    let buf = Buffer.alloc(0);
    const order: number[] = [];
    h.client.on('data', (d) => {
      buf = Buffer.concat([buf, typeof d === 'string' ? Buffer.from(d) : d]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readInt32BE(0)) {
        order.push(buf.readInt32BE(4));
        buf = buf.subarray(4 + buf.readInt32BE(0));
        got++;
      }
    });
    h.client.resume();
    for (let i = 0; i < 200 && got < 50; i++) await sleep(25);
    expect(order).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('stops reading while queued.max.request.bytes is spent and resumes when answers release it', async () => {
    const pool = new RequestBytesPool(64 * 1024);
    const pending: Array<() => void> = [];
    let dispatched = 0;
    const h = await harness((f) => {
      dispatched++;
      return new Promise((r) => pending.push(() => r(response(f.readInt32BE(4), 8))));
    }, LIMITS, pool);
    const total = 256;
    h.client.write(Buffer.concat(Array.from({ length: total }, (_, i) => frame(0, i, 8 * 1024)))); // 2 MiB of produce-sized frames
    await sleep(300);
    // Reading stopped near the limit: at most the limit plus the chunk that crossed it.
    expect(pool.bytes).toBeLessThanOrEqual(64 * 1024 + 128 * 1024);
    expect(dispatched * 8 * 1024).toBeLessThanOrEqual(64 * 1024 + 128 * 1024);
    expect(dispatched).toBeLessThan(total);
    // Answering releases the bytes and everything is read and dispatched in the end.
    for (let i = 0; i < 400 && dispatched < total; i++) {
      while (pending.length) pending.shift()!();
      await sleep(5);
    }
    while (pending.length) pending.shift()!();
    expect(dispatched).toBe(total);
    await sleep(50);
    expect(pool.bytes).toBe(0);
  });

  it('closes a connection whose frame is not complete within the partial-request timeout', async () => {
    const h = await harness(async (f) => response(f.readInt32BE(4), 8), { ...LIMITS, partialRequestTimeoutMs: 1000 });
    h.client.write(frame(0, 1, 1000).subarray(0, 500));
    await sleep(100);
    h.conn.sweep(Date.now() + 500);
    expect(await closed(h.client, 100)).toBe(false); // not yet
    h.conn.sweep(Date.now() + 1001);
    expect(await closed(h.client, 1000)).toBe(true);
  });

  it('closes an idle connection, but not one with a request in flight', async () => {
    const idle = await harness(async (f) => response(f.readInt32BE(4), 8), { ...LIMITS, idleMs: 1000 });
    idle.conn.sweep(Date.now() + 500);
    expect(await closed(idle.client, 100)).toBe(false);
    idle.conn.sweep(Date.now() + 1001);
    expect(await closed(idle.client, 1000)).toBe(true);

    const busy = await harness(() => new Promise(() => undefined), { ...LIMITS, idleMs: 1000 });
    busy.client.write(frame(1, 1));
    await sleep(100);
    busy.conn.sweep(Date.now() + 5000);
    expect(await closed(busy.client, 200)).toBe(false);
  });
});

describe('RequestBytesPool', () => {
  it('is exhausted at its limit and wakes waiters once below it; <= 0 means unlimited', () => {
    const p = new RequestBytesPool(100);
    let woke = 0;
    p.acquire(150);
    expect(p.exhausted()).toBe(true);
    p.onAvailable(() => woke++);
    p.release(40);
    expect(woke).toBe(0);
    p.release(20);
    expect(p.exhausted()).toBe(false);
    expect(woke).toBe(1);
    const unlimited = new RequestBytesPool(-1);
    unlimited.acquire(1 << 30);
    expect(unlimited.exhausted()).toBe(false);
  });

  it('a quota throttle stops reading for its time, and reading resumes even when the timer fires before Date.now() reaches the deadline', async () => {
    const dispatchedAt: number[] = [];
    const started = performance.now();
    const h = await harness(async (f) => {
      dispatchedAt.push(performance.now() - started);
      const r = response(f.readInt32BE(4), 8);
      return dispatchedAt.length === 1 ? { ...r, throttleMs: 200 } : r;
    });
    const answers: number[] = [];
    h.client.on('data', () => answers.push(performance.now() - started));
    h.client.write(frame(0, 1));
    while (answers.length === 0) await sleep(5);
    // From now on the wall clock lags 50 ms behind the timers: the unthrottle
    // timer fires while Date.now() is still before the deadline.
    const real = Date.now.bind(Date);
    const lag = vi.spyOn(Date, 'now').mockImplementation(() => real() - 50);
    try {
      h.client.write(frame(0, 2));
      const deadline = performance.now() + 2000;
      while (dispatchedAt.length < 2 && performance.now() < deadline) await sleep(10);
      expect(dispatchedAt.length).toBe(2);
      // not before the throttle time (measured from the first answer)
      expect(dispatchedAt[1]! - answers[0]!).toBeGreaterThanOrEqual(190);
    } finally {
      lag.mockRestore();
    }
  });
});
