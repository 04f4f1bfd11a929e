import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ReadConnection, ShardReaders, entriesToBatches, streamingRanges } from '../../../broker/src/redis/read-connection.js';
import type { StoredBatch } from '../../../broker/src/storage/log-store.js';
import { Pieces } from '../../../broker/src/redis/resp-stream.js';

const servers: net.Server[] = [];
afterEach(() => { for (const s of servers.splice(0)) s.close(); });

/** A fake Redis that answers every command with `reply(n)` (n = commands seen), written in `split`-byte chunks. */
async function fakeRedis(reply: (n: number) => Buffer | null, split = 0): Promise<number> {
  let n = 0;
  const server = net.createServer((sock) => {
    sock.on('data', () => {
      const r = reply(n++);
      if (!r) return;
      if (split <= 0) sock.write(r);
      else {
        // A pause between writes, so the client's socket delivers them as separate chunks.
        const next = (at: number): void => {
          if (at >= r.length) return;
          sock.write(r.subarray(at, at + split));
          setTimeout(() => next(at + split), 2);
        };
        next(0);
      }
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return (server.address() as net.AddressInfo).port;
}

const batch = (n: number, lastOffsetDelta: number): Buffer => {
  const b = Buffer.alloc(n, 0x5a);
  b.writeInt32BE(lastOffsetDelta, 23);
  return b;
};
const bulk = (x: Buffer | string): Buffer => { const b = Buffer.isBuffer(x) ? x : Buffer.from(x); return Buffer.concat([Buffer.from(`$${b.length}\r\n`), b, Buffer.from('\r\n')]); };
const xrangeReply = (entries: Array<[number, Buffer]>): Buffer => Buffer.concat([
  Buffer.from(`*${entries.length}\r\n`),
  ...entries.flatMap(([base, b]) => [Buffer.from('*2\r\n'), bulk(`${base}-1`), Buffer.from('*4\r\n'), bulk('p'), bulk('7'), bulk('b'), bulk(b)]),
]);

describe('ReadConnection', () => {
  it('reads XRANGE batches split over many socket chunks as uncopied pieces', async () => {
    const a = batch(5000, 9);
    const b = batch(70, 0);
    const port = await fakeRedis(() => xrangeReply([[0, a], [10, b]]), 333);
    const conn = new ReadConnection({ host: '127.0.0.1', port });
    const out = await conn.range(false, 'k', '0-1', '+', 2);
    expect(out.map((x) => [x.baseOffset, x.lastOffsetDelta, x.size])).toEqual([[0, 9, 5000], [10, 0, 70]]);
    expect(Buffer.concat(out[0]!.pieces).equals(a)).toBe(true);
    expect(Buffer.concat(out[1]!.pieces).equals(b)).toBe(true);
    expect(out[0]!.pieces.length).toBeGreaterThan(1);
    conn.close();
  });

  it('rejects with the error reply (a MOVED) and keeps working', async () => {
    const port = await fakeRedis((n) => (n === 0 ? Buffer.from('-MOVED 866 127.0.0.1:7001\r\n') : Buffer.from('*0\r\n')));
    const conn = new ReadConnection({ host: '127.0.0.1', port });
    await expect(conn.range(false, 'k', '0-1', '+', 1)).rejects.toThrow(/^MOVED 866/);
    expect(await conn.range(false, 'k', '0-1', '+', 1)).toEqual([]);
    conn.close();
  });

  it('fails a hostile reply (a wrong bulk length) at once with a clear error, and reconnects for the next read', async () => {
    const wrong = Buffer.from('*1\r\n*2\r\n$3\r\n0-1\r\n*2\r\n$1\r\nb\r\n$10\r\nshort\r\n*0\r\n*0\r\n');
    const port = await fakeRedis((n) => (n === 0 ? wrong : Buffer.from('*0\r\n')));
    const conn = new ReadConnection({ host: '127.0.0.1', port }, 60_000);
    const started = Date.now();
    await expect(conn.range(false, 'k', '0-1', '+', 1)).rejects.toThrow(/not followed by CRLF/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await conn.range(false, 'k', '0-1', '+', 1)).toEqual([]);
    conn.close();
  });

  it('fails a reply that stops short of its length within the reply timeout', async () => {
    const port = await fakeRedis(() => Buffer.from('*1\r\n*2\r\n$3\r\n0-1\r\n*2\r\n$1\r\nb\r\n$100\r\nonly this'));
    const conn = new ReadConnection({ host: '127.0.0.1', port }, 200);
    await expect(conn.range(false, 'k', '0-1', '+', 1)).rejects.toThrow(/no reply from redis within 200 ms/);
    conn.close();
  });

  it('refuses entries without a batch field, or batches shorter than a header', () => {
    const p = (s: string): Pieces => new Pieces([Buffer.from(s)], s.length);
    expect(() => entriesToBatches([[p('0-1'), [p('x'), p('y')]]])).toThrow(/without a batch field/);
    expect(() => entriesToBatches([[p('0-1'), [p('b'), p('short')]]])).toThrow(/shorter than a batch header/);
    expect(() => entriesToBatches('OK')).toThrow(/not an array/);
    expect(entriesToBatches(null)).toEqual([]);
  });
});

describe('streamingRanges', () => {
  it('reads a MOVED slot through the fallback (ioredis), and fails on other errors', async () => {
    let n = 0;
    const port = await fakeRedis(() => (n++ === 0 ? Buffer.from('-MOVED 866 127.0.0.1:7001\r\n') : Buffer.from('-WRONGTYPE Operation against a key holding the wrong kind of value\r\n')));
    const readers = new ShardReaders({ seeds: [{ host: '127.0.0.1', port }], tls: false }, null, undefined);
    const fallbackCalls: string[] = [];
    const stored = batch(80, 4);
    const fallback = {
      range: async (reverse: boolean, key: string): Promise<StoredBatch[]> => { fallbackCalls.push(`${reverse ? 'XREVRANGE' : 'XRANGE'} ${key}`); return [{ baseOffset: 5, bytes: stored }]; },
      lastOffsetDelta: (b: StoredBatch) => b.bytes.readInt32BE(23),
    };
    const ranges = streamingRanges(readers, fallback);
    const out = await ranges.range(false, 'rn:p:{t/0}:log', '5-1', '+', 3);
    expect(out).toEqual([{ baseOffset: 5, lastOffsetDelta: 4, size: 80, pieces: [stored] }]);
    expect(fallbackCalls).toEqual(['XRANGE rn:p:{t/0}:log']);
    await expect(ranges.range(false, 'rn:p:{t/0}:log', '5-1', '+', 3)).rejects.toThrow(/^WRONGTYPE/);
    expect(fallbackCalls).toHaveLength(1);
    readers.close();
  });
});

describe('ShardReaders', () => {
  it('routes by the slot map, one connection per primary, and prunes connections to nodes that own no slot', () => {
    const slots: string[][] = Array.from({ length: 16384 }, (_, s) => [s < 8192 ? '127.0.0.1:7001' : '127.0.0.1:7002']);
    const readers = new ShardReaders({ seeds: [{ host: '127.0.0.1', port: 7001 }], tls: false }, { slots } as never, undefined);
    const a = readers.forSlot(0);
    expect(readers.forSlot(100)).toBe(a);
    const b = readers.forSlot(9000);
    expect(b).not.toBe(a);
    slots.fill(['127.0.0.1:7002']); // 7001 failed over: 7002 owns everything
    readers.prune();
    expect(readers.forSlot(0)).toBe(b);
    slots[5] = [];
    expect(readers.forSlot(5)).toBeNull(); // no owner known: the caller reads through ioredis
    readers.close();
  });
});
