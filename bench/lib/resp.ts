// A minimal pipelining RESP2 client for the raw-Redis ceiling driver: nothing
// between the benchmark and the socket but a command encoder and a reply
// parser. Commands are written immediately (several may be in flight); replies
// resolve in order. Bulk strings come back as Buffers.
import net from 'node:net';

export type Reply = null | number | string | Buffer | Error | Reply[];

const CRLF = Buffer.from('\r\n');

/** Thrown inside the parser when the buffered bytes do not hold a whole reply yet. */
class Incomplete {
  constructor(readonly need: number) {}
}

export function encodeCommand(args: Array<string | Buffer | number>): Buffer[] {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const a of args) {
    const b = Buffer.isBuffer(a) ? a : Buffer.from(String(a));
    parts.push(Buffer.from(`$${b.length}\r\n`), b, CRLF);
  }
  return parts;
}

export class RespConnection {
  private readonly sock: net.Socket;
  private readonly pending: Array<{ resolve: (r: Reply) => void; reject: (e: Error) => void }> = [];
  private chunks: Buffer[] = [];
  private buffered = 0;
  private need = 0;
  private closedErr: Error | null = null;

  private constructor(sock: net.Socket) {
    this.sock = sock;
    sock.setNoDelay(true);
    sock.on('data', (d: Buffer) => this.onData(d));
    const fail = (e: Error): void => {
      this.closedErr = e;
      for (const p of this.pending.splice(0)) p.reject(e);
    };
    sock.on('error', (e) => fail(e));
    sock.on('close', () => fail(new Error('redis connection closed')));
  }

  static connect(port: number, host = '127.0.0.1'): Promise<RespConnection> {
    return new Promise((resolve, reject) => {
      const sock = net.connect({ host, port });
      sock.once('error', reject);
      sock.once('connect', () => {
        sock.removeListener('error', reject);
        resolve(new RespConnection(sock));
      });
    });
  }

  get inFlight(): number {
    return this.pending.length;
  }

  /** Sends one command; resolves with its reply (an Error reply resolves as an Error value). */
  send(args: Array<string | Buffer | number>): Promise<Reply> {
    if (this.closedErr) return Promise.reject(this.closedErr);
    const parts = encodeCommand(args);
    this.sock.cork();
    for (const p of parts) this.sock.write(p);
    this.sock.uncork();
    return new Promise((resolve, reject) => this.pending.push({ resolve, reject }));
  }

  /** Like send(), but rejects on an error reply. */
  async call(args: Array<string | Buffer | number>): Promise<Reply> {
    const r = await this.send(args);
    if (r instanceof Error) throw r;
    return r;
  }

  close(): void {
    this.sock.destroy();
  }

  private onData(d: Buffer): void {
    this.chunks.push(d);
    this.buffered += d.length;
    if (this.buffered < this.need) return;
    let buf = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
    let at = 0;
    for (;;) {
      if (at >= buf.length) {
        buf = Buffer.alloc(0);
        at = 0;
        break;
      }
      try {
        const [reply, next] = parse(buf, at);
        at = next;
        const p = this.pending.shift();
        if (p) p.resolve(reply);
      } catch (e) {
        if (e instanceof Incomplete) {
          this.need = e.need - at;
          break;
        }
        throw e;
      }
    }
    const rest = buf.subarray(at);
    this.chunks = rest.length ? [rest] : [];
    this.buffered = rest.length;
    if (!rest.length) this.need = 0;
  }
}

function lineEnd(buf: Buffer, from: number): number {
  const i = buf.indexOf(13, from);
  if (i < 0 || i + 1 >= buf.length) throw new Incomplete(buf.length + 1);
  return i;
}

function parse(buf: Buffer, at: number): [Reply, number] {
  if (at >= buf.length) throw new Incomplete(at + 1);
  const type = buf[at]!;
  const end = lineEnd(buf, at + 1);
  const line = buf.toString('latin1', at + 1, end);
  const next = end + 2;
  switch (type) {
    case 0x2b /* + */:
      return [line, next];
    case 0x2d /* - */:
      return [new Error(line), next];
    case 0x3a /* : */:
      return [Number(line), next];
    case 0x24 /* $ */: {
      const len = Number(line);
      if (len < 0) return [null, next];
      if (buf.length < next + len + 2) throw new Incomplete(next + len + 2);
      return [buf.subarray(next, next + len), next + len + 2];
    }
    case 0x2a /* * */: {
      const n = Number(line);
      if (n < 0) return [null, next];
      const out: Reply[] = new Array(n);
      let p = next;
      for (let i = 0; i < n; i++) {
        const [r, q] = parse(buf, p);
        out[i] = r;
        p = q;
      }
      return [out, p];
    }
    default:
      throw new Error(`RESP: unexpected type byte 0x${type.toString(16)}`);
  }
}
