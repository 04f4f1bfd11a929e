// An SSL listener over real loopback TLS (certificates made with openssl),
// with a stub dispatcher that records each request's session: the principal
// from the client certificate, ssl.client.auth, the handshake timeout and
// certificate reload.
import fs from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KafkaServer, type ServerLimits } from '../../../broker/src/server/server.js';
import { TlsListener } from '../../../broker/src/server/tls-listener.js';
import { sslSettingsFor } from '../../../broker/src/config/listeners.js';
import { recordingDispatcher, requestFrame } from '../support/recording-dispatcher.js';
import { createLogger } from '../../../common/logger/logger.js';
import { issueCert, makeTestPki, type TestPki } from '../../helpers/redis-tls.js';
import { runCommand } from '../../helpers/procs.js';

const LIMITS: ServerLimits = { maxFrameBytes: 1 << 20, maxUnsentBytes: 1 << 20, idleMs: 60_000, partialRequestTimeoutMs: 400, maxConnections: 0, queuedMaxRequestBytes: 0 };
const logger = createLogger('error', 'test');

let pki: TestPki;
let alice: { cert: string; key: string };
let stranger: { cert: string; key: string };
beforeAll(async () => {
  pki = await makeTestPki();
  alice = await issueCert(pki.dir, { name: 'alice', subject: '/O=org/OU=eng/CN=alice', usage: 'client' });
  stranger = await issueCert(pki.dir, { name: 'stranger', subject: '/CN=stranger', usage: 'client', ca: 'other-ca' });
  // Kafka's PEM keystore: key and certificate chain in one file
  fs.writeFileSync(`${pki.dir}/keystore.pem`, fs.readFileSync(pki.serverKey, 'utf8') + fs.readFileSync(pki.serverCert, 'utf8'));
});
afterAll(() => fs.rmSync(pki.dir, { recursive: true, force: true }));

const servers: KafkaServer[] = [];
afterEach(async () => { await Promise.all(servers.splice(0).map((s) => s.close())); });

/** An SSL listener on an ephemeral port; `sessions` gets the session of every request. */
async function listener(keys: Record<string, string>, protocol: 'SSL' | 'SASL_SSL' = 'SSL') {
  const { dispatcher: stub, sessions } = recordingDispatcher();
  const settings = sslSettingsFor('SSL', { 'ssl.keystore.location': `${pki.dir}/keystore.pem`, ...keys });
  const tlsListener = new TlsListener('SSL', protocol, settings, 0, logger);
  const server = new KafkaServer(stub, logger, LIMITS, { name: 'SSL', securityProtocol: protocol, tls: tlsListener });
  servers.push(server);
  const port = await server.listen('127.0.0.1', 0);
  return { port, sessions, tlsListener };
}

/** One request over TLS: resolves with the server certificate's fingerprint once answered; rejects if refused. */
function request(port: number, o: { ca?: string; cert?: { cert: string; key: string } } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tls.connect({
      host: '127.0.0.1', port, ca: fs.readFileSync(o.ca ?? pki.caCert),
      ...(o.cert ? { cert: fs.readFileSync(o.cert.cert), key: fs.readFileSync(o.cert.key) } : {}),
    });
    s.setTimeout(5000, () => { s.destroy(); reject(new Error('timeout')); });
    s.once('error', reject);
    s.once('close', () => reject(new Error('closed before an answer')));
    s.once('secureConnect', () => s.write(requestFrame(7)));
    s.once('data', (d: Buffer) => {
      const fingerprint = s.getPeerX509Certificate()!.fingerprint256;
      s.removeAllListeners('close');
      s.destroy();
      if (d.readInt32BE(4) === 7) resolve(fingerprint);
      else reject(new Error('wrong correlation id'));
    });
  });
}

describe('SSL listener', () => {
  it('the principal is User: + the client certificate subject (RFC 2253); without a certificate User:ANONYMOUS; the session names listener and protocol', async () => {
    const l = await listener({ 'ssl.client.auth': 'requested', 'ssl.truststore.location': pki.caCert });
    await request(l.port, { cert: alice });
    await request(l.port);
    expect(l.sessions.map((s) => [s.listenerName, s.securityProtocol, s.principal])).toEqual([
      ['SSL', 'SSL', 'User:CN=alice,OU=eng,O=org'],
      ['SSL', 'SSL', 'User:ANONYMOUS'],
    ]);
    expect(l.sessions[0]!.connectionId).not.toBe(l.sessions[1]!.connectionId);
  });

  it('ssl.principal.mapping.rules shape the principal; a subject no rule applies to is refused', async () => {
    const l = await listener({ 'ssl.client.auth': 'required', 'ssl.truststore.location': pki.caCert, 'ssl.principal.mapping.rules': 'RULE:^CN=([^,]+),OU=eng.*$/$1@eng/U' });
    await request(l.port, { cert: alice });
    expect(l.sessions.map((s) => s.principal)).toEqual(['User:ALICE@ENG']);
    const other = await listener({ 'ssl.client.auth': 'required', 'ssl.truststore.location': pki.caCert, 'ssl.principal.mapping.rules': 'RULE:^CN=([^,]+),OU=sales.*$/$1/' });
    await expect(request(other.port, { cert: alice })).rejects.toThrow();
    expect(other.sessions).toHaveLength(0);
  });

  it('SASL_SSL: TLS without a certificate principal (SASL names it)', async () => {
    const l = await listener({ 'ssl.client.auth': 'requested', 'ssl.truststore.location': pki.caCert }, 'SASL_SSL');
    await request(l.port, { cert: alice });
    expect(l.sessions.map((s) => [s.securityProtocol, s.principal])).toEqual([['SASL_SSL', 'User:ANONYMOUS']]);
  });

  it('ssl.client.auth=required refuses a client without a certificate; requested refuses an untrusted one', async () => {
    const req = await listener({ 'ssl.client.auth': 'required', 'ssl.truststore.location': pki.caCert });
    await expect(request(req.port)).rejects.toThrow();
    await expect(request(req.port, { cert: stranger })).rejects.toThrow();
    const opt = await listener({ 'ssl.client.auth': 'requested', 'ssl.truststore.location': pki.caCert });
    await expect(request(opt.port, { cert: stranger })).rejects.toThrow();
    expect([...req.sessions, ...opt.sessions]).toHaveLength(0);
  });

  it('a client that trusts another CA refuses the server certificate', async () => {
    const l = await listener({});
    await expect(request(l.port, { ca: pki.otherCaCert })).rejects.toThrow(/self.signed|unable to verify|certificate/i);
  });

  it('inline PEM with an encrypted key (ssl.key.password), ssl.enabled.protocols and ssl.cipher.suites', async () => {
    const enc = `${pki.dir}/server-enc.key`;
    const r = await runCommand('openssl', ['pkcs8', '-topk8', '-in', pki.serverKey, '-out', enc, '-v2', 'aes-256-cbc', '-passout', 'pass:s3cret'], { timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    const inline = { 'ssl.keystore.key': fs.readFileSync(enc, 'utf8'), 'ssl.keystore.certificate.chain': fs.readFileSync(pki.serverCert, 'utf8') };
    const settings = (more: Record<string, string>) => sslSettingsFor('SSL', { ...inline, ...more });
    expect(() => new TlsListener('SSL', 'SSL', settings({ 'ssl.key.password': 'wrong' }), 0, logger)).toThrow(/RN3001.*wrong ssl\.key\.password/);
    const tlsListener = new TlsListener('SSL', 'SSL', settings({ 'ssl.key.password': 's3cret', 'ssl.enabled.protocols': 'TLSv1.2', 'ssl.cipher.suites': 'ECDHE-ECDSA-AES128-GCM-SHA256' }), 0, logger);
    const server = new KafkaServer(recordingDispatcher().dispatcher, logger, LIMITS, { name: 'SSL', securityProtocol: 'SSL', tls: tlsListener });
    servers.push(server);
    const port = await server.listen('127.0.0.1', 0);
    const hello = (o: tls.ConnectionOptions) => new Promise<{ protocol: string | null; cipher: string }>((resolve, reject) => {
      const s = tls.connect({ host: '127.0.0.1', port, ca: fs.readFileSync(pki.caCert), ...o });
      s.once('error', reject);
      s.once('secureConnect', () => { resolve({ protocol: s.getProtocol(), cipher: s.getCipher().name }); s.destroy(); });
    });
    expect(await hello({})).toEqual({ protocol: 'TLSv1.2', cipher: 'ECDHE-ECDSA-AES128-GCM-SHA256' });
    await expect(hello({ minVersion: 'TLSv1.3' })).rejects.toThrow();
  });

  it('a TLS handshake not finished within socket.partial.request.timeout.ms is closed', async () => {
    const l = await listener({});
    const s = net.connect(l.port, '127.0.0.1');
    s.on('error', () => undefined);
    const t0 = Date.now();
    await new Promise<void>((r) => s.once('close', () => r()));
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(LIMITS.partialRequestTimeoutMs - 50);
    expect(took).toBeLessThan(3000);
  });

  it('reload: new connections get replaced certificate files; a broken file keeps the previous certificate', async () => {
    const l = await listener({});
    const before = await request(l.port);
    expect(before).toBe(new X509Certificate(fs.readFileSync(pki.serverCert)).fingerprint256);
    // a server certificate from the other CA replaces the keystore file
    const next = await issueCert(pki.dir, { name: 'server2', subject: '/CN=runnel test server 2', usage: 'server', ca: 'other-ca' });
    fs.writeFileSync(`${pki.dir}/keystore.pem`, fs.readFileSync(next.key, 'utf8') + fs.readFileSync(next.cert, 'utf8'));
    l.tlsListener.reloadNow();
    const after = await request(l.port, { ca: pki.otherCaCert });
    expect(after).toBe(new X509Certificate(fs.readFileSync(next.cert)).fingerprint256);
    // a certificate without its key: refused, the server keeps serving server2
    fs.writeFileSync(`${pki.dir}/keystore.pem`, fs.readFileSync(pki.serverCert, 'utf8'));
    l.tlsListener.reloadNow();
    expect(await request(l.port, { ca: pki.otherCaCert })).toBe(after);
  });
});
