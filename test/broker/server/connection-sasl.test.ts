// A SASL_PLAINTEXT connection end to end over loopback, with the real
// Dispatcher and handlers: what passes before authentication, the
// pre-authentication frame limit, the answer-then-close of a failed
// authentication, and SaslHandshake v0's raw tokens.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Connection } from '../../../broker/src/server/connection.js';
import { RequestBytesPool } from '../../../broker/src/server/request-pool.js';
import { Dispatcher } from '../../../broker/src/dispatch.js';
import { buildHandlers } from '../../../broker/src/handlers/support/registry.js';
import { loadBrokerConfig } from '../../../broker/src/config/config.js';
import { createLogger } from '../../../common/logger/logger.js';
import type { BrokerServices } from '../../../broker/src/handlers/support/types.js';
import { ApiVersions } from '../../../broker/src/protocol/messages/api-versions.js';
import { Metadata } from '../../../broker/src/protocol/messages/metadata.js';
import { SaslHandshake } from '../../../broker/src/protocol/messages/sasl-handshake.js';
import { SaslAuthenticate } from '../../../broker/src/protocol/messages/sasl-authenticate.js';
import { ErrorCode } from '../../../common/errors.js';
import { WireClient } from '../../helpers/wire.js';
import { MemoryCredentialStore } from '../support/memory-credential-store.js';
import { newSession } from '../../../broker/src/security/session.js';

const JAAS = 'org.apache.kafka.common.security.plain.PlainLoginModule required user_admin="admin-secret";';
const servers: net.Server[] = [];
const conns: Connection[] = [];

async function saslListener(extra: string[] = []): Promise<number> {
  const config = loadBrokerConfig(['--set', 'listeners=SASL_PLAINTEXT://127.0.0.1:1', '--set', `sasl.jaas.config=${JAAS}`, ...extra.flatMap((x) => ['--set', x])], {});
  const logger = createLogger('error', 'test');
  const services = { config, logger, credentials: new MemoryCredentialStore() } as unknown as BrokerServices;
  const dispatcher = new Dispatcher(buildHandlers(), services);
  const listener = config.listeners[0]!;
  const limits = { maxFrameBytes: config.socketRequestMaxBytes, maxUnsentBytes: 1 << 20, idleMs: 60_000, partialRequestTimeoutMs: 60_000 };
  const server = net.createServer((s) => {
    conns.push(new Connection(s, newSession(conns.length + 1, s.remoteAddress ?? '', listener.name, listener.securityProtocol), dispatcher, logger, limits, new RequestBytesPool(0)));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return (server.address() as net.AddressInfo).port;
}

afterEach(() => {
  for (const c of conns.splice(0)) c.close();
  for (const s of servers.splice(0)) s.close();
});

const plain = (user: string, pw: string): Buffer => Buffer.from(`\u0000${user}\u0000${pw}`);

async function login(c: WireClient, pw = 'admin-secret'): Promise<Record<string, any>> {
  expect((await c.request(SaslHandshake, 1, { mechanism: 'PLAIN' })).errorCode).toBe(ErrorCode.NONE);
  return c.request(SaslAuthenticate, 2, { authBytes: plain('admin', pw) });
}

describe('SASL_PLAINTEXT connection', () => {
  it('answers ApiVersions before authentication (SaslAuthenticate 0-2 advertised), and serves everything after it', async () => {
    const c = await WireClient.connect(await saslListener());
    const v = await c.request(ApiVersions, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
    expect(v.apiKeys.find((k: any) => k.apiKey === 36)).toMatchObject({ minVersion: 0, maxVersion: 2 });
    expect(v.apiKeys.find((k: any) => k.apiKey === 17)).toMatchObject({ minVersion: 0, maxVersion: 1 });
    expect(await login(c)).toMatchObject({ errorCode: ErrorCode.NONE, errorMessage: '', sessionLifetimeMs: 0 });
    expect((await c.request(ApiVersions, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' })).errorCode).toBe(0);
    c.close();
  });

  it('closes the connection on any other request before authentication, without answering it', async () => {
    const c = await WireClient.connect(await saslListener());
    let answered = false;
    c.request(Metadata, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false }, 2000).then(() => { answered = true; }, () => undefined);
    expect(await c.closedWithin(1000)).toBe(true);
    expect(answered).toBe(false);
  });

  it('closes the connection on a frame above sasl.server.max.receive.size before authentication; after it the listener limit applies', async () => {
    const port = await saslListener(['sasl.server.max.receive.size=1000']);
    const c = await WireClient.connect(port);
    const big = Buffer.alloc(4 + 1001);
    big.writeInt32BE(1001, 0);
    c.writeRaw(big.subarray(0, 8)); // the size prefix alone decides
    expect(await c.closedWithin(1000)).toBe(true);
    // An authenticated connection may send a 2000-byte ApiVersions request (client software name padded).
    const d = await WireClient.connect(port);
    await login(d);
    const r = await d.request(ApiVersions, 3, { clientSoftwareName: 'x'.repeat(1990), clientSoftwareVersion: '1' });
    expect(r.errorCode).toBe(0);
    d.close();
  });

  it('handles pipelined requests one at a time until authenticated: a request sent right behind SaslAuthenticate is judged after it', async () => {
    const c = await WireClient.connect(await saslListener());
    const hs = c.request(SaslHandshake, 1, { mechanism: 'PLAIN' });
    const auth = c.request(SaslAuthenticate, 2, { authBytes: plain('admin', 'admin-secret') });
    const after = c.request(ApiVersions, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
    expect((await hs).errorCode).toBe(ErrorCode.NONE);
    expect((await auth).errorCode).toBe(ErrorCode.NONE);
    expect((await after).errorCode).toBe(ErrorCode.NONE);
    c.close();
  });

  it('closes the connection, unanswered, on SaslAuthenticate before SaslHandshake', async () => {
    const c = await WireClient.connect(await saslListener());
    let answered = false;
    c.request(SaslAuthenticate, 2, { authBytes: plain('admin', 'admin-secret') }, 2000).then(() => { answered = true; }, () => undefined);
    expect(await c.closedWithin(1000)).toBe(true);
    expect(answered).toBe(false);
  });

  it('answers a failed authentication with SASL_AUTHENTICATION_FAILED after connection.failed.authentication.delay.ms, then closes', async () => {
    const c = await WireClient.connect(await saslListener(['connection.failed.authentication.delay.ms=300']));
    const t0 = Date.now();
    const r = await login(c, 'wrong');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    expect(r).toMatchObject({ errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: 'Authentication failed: Invalid username or password' });
    expect(await c.closedWithin(1000)).toBe(true);
  });

  it('closes a connection whose session expired (connections.max.reauth.ms) at its next request', async () => {
    const c = await WireClient.connect(await saslListener(['connections.max.reauth.ms=300']));
    expect((await login(c)).sessionLifetimeMs).toBe(300);
    expect((await c.request(ApiVersions, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' })).errorCode).toBe(0);
    await new Promise((r) => setTimeout(r, 400));
    let answered = false;
    c.request(ApiVersions, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' }, 2000).then(() => { answered = true; }, () => undefined);
    expect(await c.closedWithin(1000)).toBe(true);
    expect(answered).toBe(false);
  });

  it('SaslHandshake v0: raw size-prefixed tokens follow, without Kafka headers', async () => {
    const sock = net.connect(await saslListener(), '127.0.0.1');
    let got = Buffer.alloc(0);
    sock.on('data', (d: Buffer) => { got = Buffer.concat([got, d]); });
    const frames = async (n: number): Promise<Buffer[]> => {
      for (;;) {
        const out: Buffer[] = [];
        let o = 0;
        while (o + 4 <= got.length && o + 4 + got.readInt32BE(o) <= got.length) { out.push(got.subarray(o + 4, o + 4 + got.readInt32BE(o))); o += 4 + got.readInt32BE(o); }
        if (out.length >= n) return out;
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    sock.write(WireClient.frame(SaslHandshake, 0, { mechanism: 'PLAIN' }, 1));
    const [hs] = await frames(1);
    expect(hs!.readInt32BE(0)).toBe(1); // correlation id
    expect(hs!.readInt16BE(4)).toBe(ErrorCode.NONE);
    const token = plain('admin', 'admin-secret');
    const raw = Buffer.alloc(4 + token.length);
    raw.writeInt32BE(token.length, 0);
    token.copy(raw, 4);
    sock.write(raw);
    const [, reply] = await frames(2);
    expect(reply!.length).toBe(0); // PLAIN's empty server token, size-prefixed
    sock.write(WireClient.frame(ApiVersions, 0, {}, 2));
    const [, , av] = await frames(3);
    expect([av!.readInt32BE(0), av!.readInt16BE(4)]).toEqual([2, 0]);
    sock.destroy();
  });
});
