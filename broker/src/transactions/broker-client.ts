// A small Kafka client for broker-to-broker requests (WriteTxnMarkers to a
// partition's leader, AddPartitionsToTxn verification at a transaction
// coordinator), built on the project's codec. One connection per broker
// address, requests pipelined and matched by correlation id; a connection
// that fails or times out fails its requests and is reopened by the next one.
import net from 'node:net';
import { decode, encode, isFlexible } from '../protocol/codec.js';
import { Reader } from '../protocol/reader.js';
import { Writer } from '../protocol/writer.js';
import type { ApiDef } from '../protocol/schema.js';
import type { Decoded, Encodable } from '../protocol/typed.js';

export interface BrokerAddress { host: string; port: number }

const CLIENT_ID = 'runnel-broker';

class Conn {
  private buf: Buffer = Buffer.alloc(0);
  private next = 1;
  private readonly waiting = new Map<number, { resolve: (f: Buffer) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  readonly ready: Promise<void>;
  closed = false;
  private readonly sock: net.Socket;

  constructor(addr: BrokerAddress, private readonly onClose: () => void) {
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
    this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
    while (this.buf.length >= 4) {
      const n = this.buf.readInt32BE(0);
      if (this.buf.length < 4 + n) return;
      const frame = this.buf.subarray(4, 4 + n);
      this.buf = this.buf.subarray(4 + n);
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

export class BrokerClient {
  private readonly conns = new Map<string, Conn>();

  constructor(private readonly timeoutMs = 10_000) {}

  /** Sends `body` as api's request and resolves to the decoded response (its type derived from the definition). */
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

  close(): void {
    for (const c of this.conns.values()) c.close(new Error('client closed'));
    this.conns.clear();
  }
}
