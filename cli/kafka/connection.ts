// One connection to a Kafka broker: TCP or TLS, size-prefixed frames,
// correlation ids, pipelined requests (answered in order), ApiVersions at
// start, then SASL when configured. Request header v1 (v2 for a flexible
// request version); response header v0 (v1 for a flexible response version,
// except ApiVersions, whose response header is always v0).
import net from 'node:net';
import tls from 'node:tls';
import { decode, encode, isFlexible } from '../../broker/src/protocol/codec.js';
import { Reader } from '../../broker/src/protocol/reader.js';
import { Writer } from '../../broker/src/protocol/writer.js';
import { parseVersions, type VersionRange } from '../../broker/src/protocol/versions.js';
import type { ApiDef } from '../../broker/src/protocol/schema.js';
import type { Decoded, Encodable } from '../../broker/src/protocol/typed.js';
import { ApiVersions } from '../../broker/src/protocol/messages/api-versions.js';
import { SaslHandshake } from '../../broker/src/protocol/messages/sasl-handshake.js';
import { SaslAuthenticate } from '../../broker/src/protocol/messages/sasl-authenticate.js';
import { ErrorCode } from '../../common/errors.js';
import { check, KafkaResponseError } from './errors.js';
import type { ClientConfig } from './config.js';
import { authenticate } from './sasl.js';

export type Req<A extends ApiDef> = Encodable<A['request']>;
export type Res<A extends ApiDef> = Decoded<A['response']>;

interface Pending {
  correlationId: number;
  resolve(frame: Buffer): void;
  reject(e: Error): void;
}

/** The highest version both sides support, or null when their ranges do not meet. */
export function pickVersion(ours: VersionRange, theirs: VersionRange): number | null {
  const v = Math.min(ours.max, theirs.max);
  return v >= Math.max(ours.min, theirs.min) ? v : null;
}

export class Connection {
  private readonly chunks: Buffer[] = [];
  private buffered = 0;
  private readonly pending: Pending[] = [];
  private nextCorrelation = 1;
  private failure: Error | null = null;
  /** The broker's version range per api key (from ApiVersions). */
  readonly versions = new Map<number, VersionRange>();

  private constructor(private readonly sock: net.Socket, readonly address: string, private readonly clientId: string, private readonly timeoutMs: number) {
    sock.on('data', (d: Buffer) => this.onData(d));
    sock.on('error', (e) => this.fail(e));
    sock.on('close', () => this.fail(new Error(`connection to ${address} closed`)));
  }

  static async open(host: string, port: number, cfg: ClientConfig): Promise<Connection> {
    const address = `${host}:${port}`;
    const useTls = cfg.securityProtocol === 'SSL' || cfg.securityProtocol === 'SASL_SSL';
    const sock = await new Promise<net.Socket>((resolve, reject) => {
      const onError = (e: Error): void => reject(new Error(`cannot connect to ${address}: ${e.message}`));
      const s = useTls
        ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, ...cfg.tls }, () => { s.off('error', onError); resolve(s); })
        : net.connect({ host, port }, () => { s.off('error', onError); resolve(s); });
      s.once('error', onError);
      s.setTimeout(cfg.timeoutMs, () => s.destroy(new Error(`timed out after ${cfg.timeoutMs} ms`)));
    });
    sock.setTimeout(0);
    sock.setNoDelay(true);
    const c = new Connection(sock, address, cfg.clientId, cfg.timeoutMs);
    try {
      await c.negotiate();
      if (cfg.sasl) {
        await authenticate({
          handshake: (mechanism) => c.request(SaslHandshake, { mechanism }),
          authenticate: (authBytes) => c.request(SaslAuthenticate, { authBytes }),
        }, cfg.sasl);
      }
    } catch (e) {
      c.close();
      throw e;
    }
    return c;
  }

  /** ApiVersions v3 (client name and version); a broker that knows only older versions answers v0 with UNSUPPORTED_VERSION and its ranges. */
  private async negotiate(): Promise<void> {
    let r = await this.send(ApiVersions, 3, { clientSoftwareName: 'runnel-cli', clientSoftwareVersion: '1' });
    if (r.errorCode === ErrorCode.UNSUPPORTED_VERSION) r = await this.send(ApiVersions, 0, {});
    check(r.errorCode, 'ApiVersions');
    for (const k of r.apiKeys) this.versions.set(k.apiKey, { min: k.minVersion, max: k.maxVersion });
  }

  /** The version to use for `api` with this broker; UNSUPPORTED_VERSION when there is none. */
  version(api: ApiDef): number {
    const theirs = this.versions.get(api.apiKey);
    const v = theirs ? pickVersion(parseVersions(api.request.validVersions), theirs) : null;
    if (v === null) throw new KafkaResponseError(ErrorCode.UNSUPPORTED_VERSION, `${api.name} with ${this.address}`);
    return v;
  }

  /** Sends `body` at the negotiated version of `api`; resolves with the decoded response and the version used. */
  async request<A extends ApiDef>(api: A, body: Req<A> | ((version: number) => Req<A>)): Promise<Res<A>> {
    const v = this.version(api);
    return this.send(api, v, typeof body === 'function' ? body(v) : body);
  }

  /** Sends at an explicit version. acks=0 Produce is never used, so every request has a response. */
  send<A extends ApiDef>(api: A, version: number, body: Req<A>): Promise<Res<A>> {
    if (this.failure) return Promise.reject(this.failure);
    const correlationId = this.nextCorrelation++;
    const w = new Writer(512);
    w.int32(0).int16(api.apiKey).int16(version).int32(correlationId);
    const id = Buffer.from(this.clientId);
    w.int16(id.length).bytes(id);
    if (isFlexible(api.request, version)) w.uvarint(0);
    encode(api.request, version, body, w);
    const chunks = w.toChunks();
    chunks[0]!.writeInt32BE(w.length - 4, 0);
    return new Promise<Res<A>>((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new Error(`${api.name} to ${this.address}: no response within ${this.timeoutMs} ms`)), this.timeoutMs + 60_000);
      this.pending.push({
        correlationId,
        resolve: (frame) => {
          clearTimeout(timer);
          try {
            const r = new Reader(frame, 4);
            if (api.apiKey !== ApiVersions.apiKey && isFlexible(api.response, version)) r.uvarint(); // response header tags
            // A broker answers an ApiVersions version it lacks in v0 form (KIP-511).
            const v = api.apiKey === ApiVersions.apiKey && frame.length >= 6 && frame.readInt16BE(4) === ErrorCode.UNSUPPORTED_VERSION ? 0 : version;
            resolve(decode(api.response, v, r) as Res<A>); // decode of A's own definition
          } catch (e) {
            reject(e as Error);
          }
        },
        reject: (e) => { clearTimeout(timer); reject(e); },
      });
      for (const c of chunks) this.sock.write(c);
    });
  }

  private onData(d: Buffer): void {
    this.chunks.push(d);
    this.buffered += d.length;
    while (this.buffered >= 4) {
      const head = this.chunks[0]!.length >= 4 ? this.chunks[0]! : this.flatten();
      const size = head.readInt32BE(0);
      if (this.buffered < 4 + size) return;
      const all = this.flatten();
      const frame = all.subarray(4, 4 + size);
      const rest = all.subarray(4 + size);
      this.chunks.length = 0;
      this.buffered = rest.length;
      if (rest.length) this.chunks.push(rest);
      const p = this.pending.shift();
      const cid = frame.readInt32BE(0);
      if (!p || p.correlationId !== cid) {
        this.fail(new Error(`${this.address} answered correlation id ${cid}, expected ${p?.correlationId ?? 'none'}`));
        return;
      }
      p.resolve(frame);
    }
  }

  private flatten(): Buffer {
    if (this.chunks.length === 1) return this.chunks[0]!;
    const b = Buffer.concat(this.chunks, this.buffered);
    this.chunks.length = 0;
    this.chunks.push(b);
    return b;
  }

  private fail(e: Error): void {
    if (!this.failure) this.failure = e;
    for (const p of this.pending.splice(0)) p.reject(this.failure);
    this.sock.destroy();
  }

  get closed(): boolean {
    return this.failure !== null;
  }

  close(): void {
    this.fail(new Error(`connection to ${this.address} closed by the client`));
  }
}
