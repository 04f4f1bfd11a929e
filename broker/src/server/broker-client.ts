// The broker's client side of the Kafka protocol, for broker-to-broker
// requests (the transactions' BrokerClient port). One connection per broker
// address, requests pipelined and matched by correlation id; a connection
// that fails or times out fails its requests and is reopened by the next one.
// Responses are cut from the stream by the listeners' Framer.
import net from 'node:net';
import { decode, encode, isFlexible } from '../protocol/codec.js';
import { Reader } from '../protocol/reader.js';
import { Writer } from '../protocol/writer.js';
import type { ApiDef } from '../protocol/schema.js';
import type { Decoded, Encodable } from '../protocol/typed.js';
import type { BrokerAddress, BrokerClient } from '../transactions/broker-client.js';
import { Framer } from './framer.js';

const CLIENT_ID = 'runnel-broker';
/** A response may be as long as its int32 length prefix allows. */
const MAX_RESPONSE_BYTES = 0x7fffffff;

class Conn {
  private readonly framer = new Framer(MAX_RESPONSE_BYTES);
  private next = 1;
  private readonly waiting = new Map<number, { resolve: (f: Buffer) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  readonly ready: Promise<void>;
  closed = false;
  private readonly sock: net.Socket;

  constructor(private readonly addr: BrokerAddress, private readonly onClose: () => void) {
    this.sock = net.connect({ host: addr.host, port: addr.port });
    this.sock.setNoDelay(true);
    this.ready = new Promise((resolve, reject) => {
      this.sock.once('connect', () => resolve());
      this.sock.once('error', reject);
    });
    this.ready.catch(() => undefined);
    this.sock.on('data', (d) => this.onData(typeof d === 'string' ? Buffer.from(d) : d));
    this.sock.on('error', () => this.close(new Error(`connection to ${addr.host}:${addr.port} failed`)));
    this.sock.on('close', () => this.close(new Error(`connection to ${addr.host}:${addr.port} closed`)));
  }

  private onData(d: Buffer): void {
    const got = this.framer.push(d);
    if (got.kind === 'error') {
      this.close(new Error(`connection to ${this.addr.host}:${this.addr.port}: ${got.reason}`));
      return;
    }
    for (const frame of got.frames) {
      // Response header: the correlation id of the request answered.
      if (frame.length < 4) continue;
      const cid = frame.readInt32BE(0);
      const w = this.waiting.get(cid);
      if (!w) continue;
      this.waiting.delete(cid);
      clearTimeout(w.timer);
      w.resolve(frame);
    }
  }

  close(e: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.sock.destroy();
    for (const w of this.waiting.values()) { clearTimeout(w.timer); w.reject(e); }
    this.waiting.clear();
    this.onClose();
  }

  async request<A extends ApiDef>(api: A, version: number, body: Encodable<A['request']>, timeoutMs: number): Promise<Decoded<A['response']>> {
    await this.ready;
    const cid = this.next++;
    // Request header v1 (v2 with tagged fields for flexible versions): api key, version, correlation id, client id.
    const w = new Writer();
    w.int32(0).int16(api.apiKey).int16(version).int32(cid);
    const id = Buffer.from(CLIENT_ID);
    w.int16(id.length).bytes(id);
    if (isFlexible(api.request, version)) w.uvarint(0);
    encode<A['request']>(api.request, version, body, w);
    const out = w.toBuffer();
    out.writeInt32BE(out.length - 4, 0);
    const frame = await new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => { this.waiting.delete(cid); reject(new Error(`${api.name} timed out`)); }, timeoutMs);
      this.waiting.set(cid, { resolve, reject, timer });
      this.sock.write(out);
    });
    const r = new Reader(frame, 4);
    if (isFlexible(api.response, version)) r.uvarint(); // response header v1: tagged fields
    return decode<A['response']>(api.response, version, r);
  }
}

export class KafkaBrokerClient implements BrokerClient {
  private readonly conns = new Map<string, Conn>();

  constructor(private readonly timeoutMs = 10_000) {}

  async request<A extends ApiDef>(addr: BrokerAddress, api: A, version: number, body: Encodable<A['request']>): Promise<Decoded<A['response']>> {
    const key = `${addr.host}:${addr.port}`;
    let c = this.conns.get(key);
    if (!c || c.closed) {
      const fresh: Conn = new Conn(addr, () => { if (this.conns.get(key) === fresh) this.conns.delete(key); });
      this.conns.set(key, fresh);
      c = fresh;
    }
    return c.request(api, version, body, this.timeoutMs);
  }

  /** Closes every connection; requests waiting on them fail. */
  close(): void {
    for (const c of this.conns.values()) c.close(new Error('client closed'));
    this.conns.clear();
  }
}
