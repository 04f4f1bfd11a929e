import { describe, expect, it } from 'vitest';
import { parseAppendTarget, parseReply } from '../../../broker/src/storage/redis/append-connection.js';

describe('RESP reply parser', () => {
  it('parses every reply type and reports incomplete input', () => {
    const b = Buffer.from('+OK\r\n-ERR fenced\r\n:42\r\n$5\r\n12-1\n\r\n$-1\r\n*2\r\n:1\r\n:0\r\n');
    const out: unknown[] = [];
    let at = 0;
    for (let r = parseReply(b, at); r; r = parseReply(b, at)) {
      out.push(r.value);
      at = r.next;
    }
    expect(out[0]).toBe('OK');
    expect(out[1]).toBeInstanceOf(Error);
    expect(out.slice(2)).toEqual([42, '12-1\n', null, [1, 0]]);
    expect(at).toBe(b.length);
    for (let cut = 1; cut < 8; cut++) expect(parseReply(Buffer.from('$5\r\nabcde\r\n').subarray(0, cut), 0)).toBeNull();
    expect(parseReply(Buffer.from('*2\r\n:1\r\n'), 0)).toBeNull();
  });

  it('parses redis URLs it can serve and declines the rest', () => {
    expect(parseAppendTarget('redis://:s3cret@10.0.0.5:6380/2')).toEqual({ host: '10.0.0.5', port: 6380, username: undefined, password: 's3cret', db: 2 });
    expect(parseAppendTarget('redis://127.0.0.1')).toMatchObject({ host: '127.0.0.1', port: 6379 });
    expect(parseAppendTarget('rediss://host:6379')).toBeNull();
  });
});

describe('AppendConnection', () => {
  it('writes Buffer arguments as their own chunks inside one well-formed RESP array', async () => {
    const net = await import('node:net');
    const { AppendConnection } = await import('../../../broker/src/storage/redis/append-connection.js');
    let got = Buffer.alloc(0);
    const server = net.createServer((sock) => {
      sock.on('data', (d) => { got = Buffer.concat([got, d]); sock.write('+OK\r\n'); });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const conn = new AppendConnection({ host: '127.0.0.1', port: (server.address() as { port: number }).port });
    expect(await conn.commandParts(['EVALSHA', 'ab', Buffer.from('xy'), '', Buffer.from('z')])).toBe('OK');
    expect(got.toString()).toBe('*5\r\n$7\r\nEVALSHA\r\n$2\r\nab\r\n$2\r\nxy\r\n$0\r\n\r\n$1\r\nz\r\n');
    conn.close();
    server.close();
  });

  it('fails pending commands when the server stops answering, and reconnects afterwards', async () => {
    const net = await import('node:net');
    const { AppendConnection } = await import('../../../broker/src/storage/redis/append-connection.js');
    let answer = false;
    const server = net.createServer((sock) => {
      sock.on('data', () => { if (answer) sock.write('$3\r\n5-1\r\n'); });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as { port: number }).port;
    const conn = new AppendConnection({ host: '127.0.0.1', port }, 200);
    await expect(conn.commandParts(['XADD', 'k', '5-1', 'b', Buffer.alloc(10)])).rejects.toThrow(/no reply/);
    answer = true;
    expect(await conn.commandParts(['XADD', 'k', '5-1', 'b', Buffer.alloc(10)])).toBe('5-1');
    conn.close();
    server.close();
  });

  it('keeps issue order for commands issued while the connection is being set up', async () => {
    // Appends are fenced by offset: one issued while connecting must not be overtaken by a later one.
    const net = await import('node:net');
    const { AppendConnection } = await import('../../../broker/src/storage/redis/append-connection.js');
    const seen: string[] = [];
    let release: () => void = () => undefined;
    const setupSeen = new Promise<void>((r) => { release = r; });
    const server = net.createServer((sock) => {
      let buf = '';
      sock.on('data', (d) => {
        buf += d.toString();
        for (let m = /\*2\r\n\$\d+\r\n(\w+)\r\n\$\d+\r\n(\w+)\r\n/.exec(buf); m; m = /\*2\r\n\$\d+\r\n(\w+)\r\n\$\d+\r\n(\w+)\r\n/.exec(buf)) {
          buf = buf.slice(m.index + m[0].length);
          seen.push(`${m[1]} ${m[2]}`);
          if (m[1] === 'SETUP') {
            release();
            setTimeout(() => sock.write('+OK\r\n'), 100); // the setup reply is slow
          } else sock.write('+OK\r\n');
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const conn = new AppendConnection({ host: '127.0.0.1', port: (server.address() as { port: number }).port }, 5000, [['SETUP', 'x']]);
    const a = conn.command(['ECHO', 'A']);
    await setupSeen; // connected, setup sent, its reply pending
    const b = conn.command(['ECHO', 'B']);
    expect(await Promise.all([a, b])).toEqual(['OK', 'OK']);
    expect(seen).toEqual(['SETUP x', 'ECHO A', 'ECHO B']);
    conn.close();
    server.close();
  });
});
