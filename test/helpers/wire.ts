// A minimal raw Kafka client for wire-level tests, built on Runnel's own codec
// (the server side under test is reached only over TCP).
import net from 'node:net';
import { encode, decode, isFlexible } from '../../broker/src/protocol/codec.js';
import { Reader } from '../../broker/src/protocol/reader.js';
import { Writer } from '../../broker/src/protocol/writer.js';
import type { ApiDef } from '../../broker/src/protocol/schema.js';
import { HOST } from './procs.js';

export class WireClient {
  private sock!: net.Socket;
  private buf = Buffer.alloc(0);
  private nextCorrelation = 1;
  private waiting = new Map<number, (frame: Buffer) => void>();
  closed = false;

  static async connect(port: number, host = HOST): Promise<WireClient> {
    const c = new WireClient();
    await new Promise<void>((res, rej) => {
      c.sock = net.connect({ host, port }, () => res());
      c.sock.once('error', rej);
    });
    c.sock.on('data', (d) => c.onData(typeof d === 'string' ? Buffer.from(d) : d));
    c.sock.on('close', () => { c.closed = true; });
    c.sock.on('error', () => { c.closed = true; });
    return c;
  }

  private onData(d: Buffer): void {
    this.buf = Buffer.concat([this.buf, d]);
    while (this.buf.length >= 4) {
      const n = this.buf.readInt32BE(0);
      if (this.buf.length < 4 + n) return;
      const frame = this.buf.subarray(4, 4 + n);
      this.buf = this.buf.subarray(4 + n);
      const cid = frame.readInt32BE(0);
      this.waiting.get(cid)?.(frame);
      this.waiting.delete(cid);
    }
  }

  /** Encodes a request with header v1/v2 as the API's version demands. */
  static frame(api: ApiDef, version: number, body: Record<string, unknown>, correlationId: number, clientId = 'wire-test'): Buffer {
    const w = new Writer();
    w.int32(0).int16(api.apiKey).int16(version).int32(correlationId);
    const id = Buffer.from(clientId);
    w.int16(id.length).bytes(id);
    if (isFlexible(api.request, version)) w.uvarint(0);
    encode(api.request, version, body, w);
    const out = w.toBuffer();
    out.writeInt32BE(out.length - 4, 0);
    return out;
  }

  async request(api: ApiDef, version: number, body: Record<string, unknown>, timeoutMs = 10_000): Promise<Record<string, any>> {
    const cid = this.nextCorrelation++;
    const frame = await this.send(WireClient.frame(api, version, body, cid), cid, timeoutMs);
    const r = new Reader(frame, 4);
    const flexibleHeader = api.apiKey !== 18 && isFlexible(api.response, version);
    if (flexibleHeader) r.uvarint();
    return decode(api.response, version, r);
  }

  /** Sends raw bytes; resolves with the response frame for `correlationId` (if given). */
  send(bytes: Buffer, correlationId?: number, timeoutMs = 10_000): Promise<Buffer> {
    return new Promise((res, rej) => {
      const timer = setTimeout(() => rej(new Error('no response')), timeoutMs);
      if (correlationId !== undefined) {
        this.waiting.set(correlationId, (f) => { clearTimeout(timer); res(f); });
      }
      this.sock.write(bytes, (err) => {
        if (err) { clearTimeout(timer); rej(err); }
        if (correlationId === undefined) { clearTimeout(timer); res(Buffer.alloc(0)); }
      });
    });
  }

  writeRaw(bytes: Buffer): void {
    this.sock.write(bytes);
  }

  /** Resolves true if the server closes the connection within ms. */
  closedWithin(ms: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(true);
    return new Promise((res) => {
      const t = setTimeout(() => res(false), ms);
      this.sock.once('close', () => { clearTimeout(t); res(true); });
    });
  }

  close(): void {
    this.sock.destroy();
  }
}

/**
 * Commits `offsets` (index = partition) of one topic for a group without
 * members (OffsetCommit v8, generation -1, as a simple consumer does), on the
 * broker at `port` (its coordinator). Resolves with the per-partition error codes.
 */
export async function commitSimpleOffsets(port: number, groupId: string, topic: string, offsets: number[]): Promise<number[]> {
  const { OffsetCommit } = await import('../../broker/src/protocol/messages/offset-commit.js');
  const c = await WireClient.connect(port);
  try {
    const r = await c.request(OffsetCommit, 8, {
      groupId, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null,
      topics: [{ name: topic, partitions: offsets.map((o, p) => ({ partitionIndex: p, committedOffset: o, committedLeaderEpoch: -1, committedMetadata: '' })) }],
    });
    return (r.topics[0].partitions as Array<{ errorCode: number }>).map((x) => x.errorCode);
  } finally {
    c.close();
  }
}
