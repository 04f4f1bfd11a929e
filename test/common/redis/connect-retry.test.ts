// The start-up wait for Redis shared by the broker and the archiver
// (common/redis/connect-retry.ts): what is retried, what fails at once, and
// what the final error says. The real refused port is covered end to end in
// test/integration/cli.test.ts and test/archiver/integration/startup.test.ts.
import { describe, expect, it } from 'vitest';
import { CONNECT_RETRY_MS, connectFailureReason, connectWithRetry, type ConnectRetryOptions } from '../../../common/redis/connect-retry.js';
import { RunnelError } from '../../../common/errors.js';

function recorder() {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push({ level, msg, fields });
  return { lines, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
}

const refused = (): Error => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });

function opts(over: Partial<ConnectRetryOptions> = {}): ConnectRetryOptions & { lines: ReturnType<typeof recorder>['lines']; cleaned: () => number } {
  const r = recorder();
  let cleaned = 0;
  return {
    url: 'redis://app:Sekr3t@127.0.0.1:1', timeoutMs: 2_000, setting: 'x.timeout.ms', urlSetting: 'x.url', tlsSettings: 'x.tls.*',
    logger: r.logger, cleanup: async () => void cleaned++, lines: r.lines, cleaned: () => cleaned, ...over,
  };
}

describe('connectWithRetry', () => {
  it('retries refused attempts every CONNECT_RETRY_MS until one succeeds, logging one wait and one recovery', async () => {
    const o = opts();
    let calls = 0;
    const t0 = Date.now();
    const n = await connectWithRetry(async () => {
      if (++calls < 3) throw refused();
    }, o);
    expect(n).toBe(3);
    expect(calls).toBe(3);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2 * CONNECT_RETRY_MS - 20);
    expect(o.lines.map((l) => `${l.level} ${l.msg}`)).toEqual(['warn waiting for redis', 'info redis reachable']);
    expect(o.lines[0]!.fields).toMatchObject({ url: 'redis://***@127.0.0.1:1', timeoutMs: 2_000 });
    expect(String(o.lines[0]!.fields!.reason)).toMatch(/^connection refused/);
    expect(o.cleaned()).toBe(0);
  });

  it('gives up after timeoutMs with the URL redacted, the reason, the attempts and the setting', async () => {
    const o = opts({ timeoutMs: 700 });
    let calls = 0;
    const t0 = Date.now();
    const err = await connectWithRetry(async () => {
      calls++;
      throw refused();
    }, o).catch((e: Error) => e);
    const took = Date.now() - t0;
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe(`cannot connect to redis at redis://***@127.0.0.1:1: connection refused (connect ECONNREFUSED 127.0.0.1:1) (gave up after ${calls} attempts in 700 ms, x.timeout.ms; check x.url)`);
    expect(calls).toBeGreaterThanOrEqual(3);
    expect(took).toBeGreaterThanOrEqual(500);
    expect(took).toBeLessThan(700 + 2 * CONNECT_RETRY_MS);
    expect(o.cleaned()).toBe(1);
  });

  it('a configuration error (RunnelError) fails at the first attempt', async () => {
    const o = opts();
    let calls = 0;
    const bad = new RunnelError('CONFIG_INVALID', 'redis.url: nonsense');
    await expect(connectWithRetry(async () => {
      calls++;
      throw bad;
    }, o)).rejects.toBe(bad);
    expect(calls).toBe(1);
    expect(o.cleaned()).toBe(1);
    expect(o.lines).toEqual([]);
  });

  it('a refused certificate fails at once, naming the TLS settings', async () => {
    const o = opts();
    let calls = 0;
    const err = await connectWithRetry(async () => {
      calls++;
      throw Object.assign(new Error('unable to verify the first certificate'), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    }, o).catch((e: Error) => e);
    expect(calls).toBe(1);
    expect((err as Error).message).toBe('redis TLS handshake failed: unable to verify the first certificate (check x.url and x.tls.*)');
  });
});

describe('connectFailureReason', () => {
  it('puts socket error codes in words, keeping the message', () => {
    expect(connectFailureReason(refused())).toBe('connection refused (connect ECONNREFUSED 127.0.0.1:1)');
    expect(connectFailureReason(Object.assign(new Error('getaddrinfo ENOTFOUND nohost'), { code: 'ENOTFOUND' }))).toBe('host not found (getaddrinfo ENOTFOUND nohost)');
    expect(connectFailureReason(new Error('WRONGPASS x'))).toBe('WRONGPASS x');
    // AggregateError of a dual-stack connect carries the code on its first error
    expect(connectFailureReason(Object.assign(new Error(''), { errors: [{ code: 'ECONNREFUSED' }] }))).toBe('connection refused (ECONNREFUSED)');
  });
});
