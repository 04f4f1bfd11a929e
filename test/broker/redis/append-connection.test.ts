import { describe, expect, it } from 'vitest';
import { parseAppendTarget, parseReply } from '../../../broker/src/redis/append-connection.js';

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
    expect(parseAppendTarget('unix:///tmp/redis.sock')).toBeNull(); // rediss:// is served since issue 9: see below
  });
});

describe('AppendConnection', () => {
  it('writes Buffer arguments as their own chunks inside one well-formed RESP array', async () => {
    const net = await import('node:net');
    const { AppendConnection } = await import('../../../broker/src/redis/append-connection.js');
    let got = Buffer.alloc(0);
    const server = net.createServer((sock) => {
      sock.on('data', (d) => { got = Buffer.concat([got, typeof d === 'string' ? Buffer.from(d) : d]); sock.write('+OK\r\n'); });
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
    const { AppendConnection } = await import('../../../broker/src/redis/append-connection.js');
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
    const { AppendConnection } = await import('../../../broker/src/redis/append-connection.js');
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

// A self-signed certificate for 127.0.0.1 (P-256, valid until 2126), for a TLS server in-process.
const TEST_KEY = [
  '-----BEGIN PRIVATE KEY-----',
  'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgoHYEYXXEBHqdnU7w',
  '9m4uCq/F41DaSrnlEImDvBJRzUyhRANCAAS4PQOrE4cJY8oGfkqYd9PGAic0e1FO',
  'R0v39S4nefKZnY6gNId6rAx8/CUKkU4N13DhWWnlsWVCVBnShkoRwZu3',
  '-----END PRIVATE KEY-----',
].join('\n');
const TEST_CERT = [
  '-----BEGIN CERTIFICATE-----',
  'MIIBnzCCAUSgAwIBAgIUBhE6pTxaIgOwHVimXrQOdAlLbVQwCgYIKoZIzj0EAwIw',
  'GzEZMBcGA1UEAwwQcnVubmVsIHVuaXQgdGVzdDAgFw0yNjExMzAyMDI2MzhaGA8y',
  'MTI2MTEwNjIwMjYzOFowGzEZMBcGA1UEAwwQcnVubmVsIHVuaXQgdGVzdDBZMBMG',
  'ByqGSM49AgEGCCqGSM49AwEHA0IABLg9A6sThwljygZ+Sph308YCJzR7UU5HS/f1',
  'Lid58pmdjqA0h3qsDHz8JQqRTg3XcOFZaeWxZUJUGdKGShHBm7ejZDBiMB0GA1Ud',
  'DgQWBBSMQFhtt2+nqzSgUkpD6Uy/R7ZKETAfBgNVHSMEGDAWgBSMQFhtt2+nqzSg',
  'UkpD6Uy/R7ZKETAPBgNVHREECDAGhwR/AAABMA8GA1UdEwEB/wQFMAMBAf8wCgYI',
  'KoZIzj0EAwIDSQAwRgIhAIqkGdpw10XVJt01iSzFLHSBUyVyiC5M/7kYt3bF8MVQ',
  'AiEAl0qssHljTfbzFb/QLFRGl/6f5dZajO+Lr3fVFwMzYVU=',
  '-----END CERTIFICATE-----',
].join('\n');

describe('rediss:// (TLS) append target', () => {
  it('parses rediss:// URLs with the TLS options; redis:// stays plain', () => {
    const ca = Buffer.from('ca pem');
    const opts = { ca, servername: 'redis.internal', rejectUnauthorized: true };
    expect(parseAppendTarget('rediss://alice:s%40cret@redis.internal:6380/3', opts)).toEqual({
      host: 'redis.internal', port: 6380, username: 'alice', password: 's@cret', db: 3, tls: true, tlsOptions: opts,
    });
    expect(parseAppendTarget('rediss://127.0.0.1')).toEqual({ host: '127.0.0.1', port: 6379, tls: true, tlsOptions: {} });
    const plain = parseAppendTarget('redis://alice:pw@127.0.0.1:6379', opts);
    expect(plain).toEqual({ host: '127.0.0.1', port: 6379, username: 'alice', password: 'pw', db: undefined });
    expect(plain).not.toHaveProperty('tls');
    expect(plain).not.toHaveProperty('tlsOptions');
  });

  it('speaks the same RESP over TLS: AUTH user pass and setup first, Buffer arguments intact, replies parsed', async () => {
    const tls = await import('node:tls');
    const { AppendConnection } = await import('../../../broker/src/redis/append-connection.js');
    let got = '';
    let answered = 0;
    const server = tls.createServer({ key: TEST_KEY, cert: TEST_CERT }, (sock) => {
      sock.on('data', (d) => {
        got += d.toString();
        // One +OK per complete command seen so far (each starts with '*').
        const n = got.split('*').length - 1;
        while (answered < n) { answered++; sock.write(answered === n && got.includes('XADD') ? '$3\r\n5-1\r\n' : '+OK\r\n'); }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as { port: number }).port;
    const target = parseAppendTarget(`rediss://alice:s3cret@127.0.0.1:${port}`, { ca: TEST_CERT })!;
    const conn = new AppendConnection(target, 5000, [['SETUP', 'x']]);
    expect(await conn.commandParts(['XADD', 'k', '5-1', 'b', Buffer.from('xy')])).toBe('5-1');
    expect(got).toBe('*3\r\n$4\r\nAUTH\r\n$5\r\nalice\r\n$6\r\ns3cret\r\n*2\r\n$5\r\nSETUP\r\n$1\r\nx\r\n*5\r\n$4\r\nXADD\r\n$1\r\nk\r\n$3\r\n5-1\r\n$1\r\nb\r\n$2\r\nxy\r\n');
    conn.close();
    server.close();
  });

  it('refuses a server whose certificate it does not trust, failing the queued command', async () => {
    const tls = await import('node:tls');
    const { AppendConnection } = await import('../../../broker/src/redis/append-connection.js');
    const server = tls.createServer({ key: TEST_KEY, cert: TEST_CERT }, (sock) => sock.on('data', () => sock.write('+OK\r\n')));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as { port: number }).port;
    const conn = new AppendConnection(parseAppendTarget(`rediss://127.0.0.1:${port}`, {})!, 5000);
    await expect(conn.command(['PING'])).rejects.toThrow(/self[- ]signed/);
    // Told to skip verification, it connects.
    const lax = new AppendConnection(parseAppendTarget(`rediss://127.0.0.1:${port}`, { rejectUnauthorized: false })!, 5000);
    expect(await lax.command(['PING'])).toBe('OK');
    conn.close();
    lax.close();
    server.close();
  });
});

describe('redis.tls.* settings', () => {
  const none = { caLocation: '', certLocation: '', keyLocation: '', servername: '', insecureSkipVerify: false };
  it('build the TLS options for rediss:// only, reading the PEM files', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const { redisTlsOptions, isTlsConfigError } = await import('../../../common/redis/tls-options.js');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-tls-opts-'));
    const file = (n: string, body: string): string => { fs.writeFileSync(path.join(dir, n), body); return path.join(dir, n); };
    const ca = file('ca.pem', TEST_CERT);
    const cert = file('client.pem', TEST_CERT);
    const key = file('client.key', TEST_KEY);
    try {
      expect(redisTlsOptions('redis://127.0.0.1:6379', none)).toBeUndefined();
      expect(redisTlsOptions('', none)).toBeUndefined(); // embedded Redis
      expect(() => redisTlsOptions('redis://127.0.0.1:6379', { ...none, caLocation: ca })).toThrow(/redis\.tls\.\* settings need a rediss:\/\/ redis\.url \(set: redis\.tls\.ca\.location\)/);
      expect(() => redisTlsOptions('', { ...none, insecureSkipVerify: true })).toThrow(/redis\.tls\.insecure\.skip\.verify/);
      expect(redisTlsOptions('rediss://127.0.0.1:6380', none)).toEqual({ rejectUnauthorized: true });
      const o = redisTlsOptions('rediss://u:p@redis.internal:6380', { ...none, caLocation: ca, certLocation: cert, keyLocation: key })!;
      expect(o.ca?.toString()).toBe(TEST_CERT);
      expect(o.cert?.toString()).toBe(TEST_CERT);
      expect(o.key?.toString()).toBe(TEST_KEY);
      expect(o.rejectUnauthorized).toBe(true);
      expect(o.servername).toBe('redis.internal'); // SNI from the host name, never from an IP address
      expect(redisTlsOptions('rediss://10.0.0.5:6380', { ...none, servername: 'redis.internal', insecureSkipVerify: true })).toEqual({ servername: 'redis.internal', rejectUnauthorized: false });
      expect(() => redisTlsOptions('rediss://h:1', { ...none, certLocation: cert })).toThrow(/go together/);
      expect(() => redisTlsOptions('rediss://h:1', { ...none, caLocation: path.join(dir, 'missing.pem') })).toThrow(/redis\.tls\.ca\.location: cannot read .*missing\.pem/);
      expect(isTlsConfigError(Object.assign(new Error('self-signed certificate in certificate chain'), { code: 'SELF_SIGNED_CERT_IN_CHAIN' }))).toBe(true);
      expect(isTlsConfigError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }))).toBe(false);
      expect(isTlsConfigError(new Error('Connection is closed.'))).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('are broker settings with Kafka-style names (defaults: off)', async () => {
    const { loadBrokerConfig } = await import('../../../broker/src/config/config.js');
    const d = loadBrokerConfig([], {});
    expect([d.redisTlsCaLocation, d.redisTlsCertLocation, d.redisTlsKeyLocation, d.redisTlsServername, d.redisTlsInsecureSkipVerify]).toEqual(['', '', '', '', false]);
    const c = loadBrokerConfig(['--set', 'redis.tls.ca.location=/a.pem', '--set', 'redis.tls.cert.location=/c.pem', '--set', 'redis.tls.key.location=/k.pem', '--set', 'redis.tls.servername=r.local'], { RUNNEL_REDIS_TLS_INSECURE_SKIP_VERIFY: 'true' });
    expect([c.redisTlsCaLocation, c.redisTlsCertLocation, c.redisTlsKeyLocation, c.redisTlsServername, c.redisTlsInsecureSkipVerify]).toEqual(['/a.pem', '/c.pem', '/k.pem', 'r.local', true]);
  });
});
