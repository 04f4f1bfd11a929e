// The hot write path: a dedicated Redis connection that sends the fenced
// append (`MULTI; EVALSHA <append-fence.lua> ...; XADD ... <batch>; EXEC`) with the batch written to
// the socket as its own Buffer (no copy into a command buffer), coalesces the
// commands of one event loop turn into a single write, and parses the few
// reply types it needs. WAIT / WAITAOF go over the same connection, so they
// cover these appends. Commands given as `setup` (SCRIPT LOAD) run first on
// every new connection, before anything queued behind them.
import net from 'node:net';

type Reply = string | number | null | Error | Reply[];

interface Pending {
  resolve(r: Reply): void;
  reject(e: Error): void;
  sentAt: number;
}

/** A reply slower than this means Redis is gone without closing the socket: drop the connection. */
const REPLY_TIMEOUT_MS = 10_000;

export interface AppendTarget {
  host: string;
  port: number;
  username?: string;
  password?: string;
  db?: number;
}

/** redis://[user:pass@]host:port[/db]; null for anything this connection does not speak (TLS, sockets). */
export function parseAppendTarget(url: string): AppendTarget | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== 'redis:') return null;
  const db = u.pathname && u.pathname !== '/' ? Number(u.pathname.slice(1)) : undefined;
  return {
    host: u.hostname || '127.0.0.1',
    port: u.port ? Number(u.port) : 6379,
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: Number.isInteger(db) ? db : undefined,
  };
}

const CRLF = Buffer.from('\r\n');

/** RESP array of bulk strings; Buffers stay separate chunks (not copied). */
function encodeParts(args: Array<string | Buffer>): Array<string | Buffer> {
  const parts: Array<string | Buffer> = [];
  let head = `*${args.length}\r\n`;
  for (const a of args) {
    if (typeof a === 'string') {
      head += bulk(a);
    } else {
      parts.push(`${head}$${a.length}\r\n`, a);
      head = '\r\n';
    }
  }
  parts.push(head);
  return parts;
}

function bulk(s: string): string {
  return `$${Buffer.byteLength(s)}\r\n${s}\r\n`;
}

export class AppendConnection {
  private socket: net.Socket | null = null;
  private connecting: Promise<void> | null = null;
  private readonly pending: Pending[] = [];
  private buf: Buffer = Buffer.alloc(0);
  private corked = false;
  private closed = false;
  private watchdog: NodeJS.Timeout | null = null;

  constructor(private readonly target: AppendTarget, private readonly replyTimeoutMs = REPLY_TIMEOUT_MS, private readonly setup: string[][] = []) {}

  /** Fails every pending command when the oldest has waited too long (a silent network partition). */
  private watch(): void {
    if (this.watchdog) return;
    this.watchdog = setInterval(() => {
      const oldest = this.pending[0];
      if (!oldest) {
        clearInterval(this.watchdog!);
        this.watchdog = null;
        return;
      }
      if (Date.now() - oldest.sentAt > this.replyTimeoutMs && this.socket) {
        this.teardown(this.socket, new Error(`no reply from redis within ${this.replyTimeoutMs} ms`));
      }
    }, Math.max(50, Math.floor(this.replyTimeoutMs / 4)));
    this.watchdog.unref();
  }

  private connect(): Promise<void> {
    if (this.connecting) return this.connecting;
    this.connecting = new Promise<void>((resolve, reject) => {
      const s = net.connect({ host: this.target.host, port: this.target.port });
      s.setNoDelay(true);
      s.setKeepAlive(true, 5_000);
      const fail = (e: Error): void => {
        this.teardown(s, e);
        reject(e);
      };
      s.once('error', fail);
      s.once('connect', () => {
        s.off('error', fail);
        s.on('error', (e) => this.teardown(s, e));
        s.on('close', () => this.teardown(s, new Error('redis append connection closed')));
        s.on('data', (d) => this.onData(d));
        this.socket = s;
        const setup: Array<Promise<Reply>> = [];
        if (this.target.password) {
          setup.push(this.command(this.target.username ? ['AUTH', this.target.username, this.target.password] : ['AUTH', this.target.password]));
        }
        if (this.target.db) setup.push(this.command(['SELECT', String(this.target.db)]));
        for (const cmd of this.setup) setup.push(this.command(cmd));
        Promise.all(setup).then((rs) => {
          const err = rs.find((r) => r instanceof Error);
          if (err) fail(err as Error);
          else resolve();
        }, fail);
      });
    }).finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private teardown(s: net.Socket, e: Error): void {
    s.destroy();
    if (this.socket !== s) return; // an older socket closing late: its commands were failed already
    this.socket = null;
    this.buf = Buffer.alloc(0);
    this.corked = false;
    const waiting = this.pending.splice(0);
    for (const p of waiting) p.reject(e);
  }

  private async ready(): Promise<net.Socket> {
    if (this.closed) throw new Error('append connection closed');
    if (!this.socket) await this.connect();
    return this.socket!;
  }

  private write(s: net.Socket, parts: Array<string | Buffer>): void {
    if (!this.corked) {
      this.corked = true;
      s.cork();
      setImmediate(() => {
        this.corked = false;
        s.uncork();
      });
    }
    for (const p of parts) s.write(p);
  }

  private send(parts: Array<string | Buffer>, s: net.Socket): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      this.pending.push({ resolve, reject, sentAt: Date.now() });
      this.write(s, parts);
      this.watch();
    });
  }

  /** A command of plain string arguments. */
  async command(args: string[]): Promise<Reply> {
    const s = this.socket ?? (await this.ready());
    return this.send([`*${args.length}\r\n${args.map(bulk).join('')}`], s);
  }

  /**
   * A command whose arguments may be Buffers: each Buffer goes to the socket
   * as it is; the string arguments around it are joined into one header.
   */
  async commandParts(args: Array<string | Buffer>): Promise<Reply> {
    const s = this.socket ?? (await this.ready());
    return this.send(encodeParts(args), s);
  }

  /**
   * MULTI, the commands, EXEC, pipelined; resolves to EXEC's reply (an array
   * of the commands' replies, or an Error such as EXECABORT). The +OK and
   * +QUEUED replies before it are consumed here.
   */
  async transaction(cmds: Array<Array<string | Buffer>>): Promise<Reply> {
    const s = this.socket ?? (await this.ready());
    const parts: Array<string | Buffer> = ['*1\r\n$5\r\nMULTI\r\n'];
    for (const c of cmds) parts.push(...encodeParts(c));
    parts.push('*1\r\n$4\r\nEXEC\r\n');
    const ignore = { resolve: (): void => undefined, reject: (): void => undefined, sentAt: Date.now() };
    for (let i = 0; i <= cmds.length; i++) this.pending.push(ignore);
    return this.send(parts, s);
  }

  close(): void {
    this.closed = true;
    if (this.socket) this.teardown(this.socket, new Error('append connection closed'));
  }

  private onData(d: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
    let at = 0;
    try {
      for (;;) {
        const parsed = parseReply(this.buf, at);
        if (!parsed) break;
        at = parsed.next;
        this.pending.shift()?.resolve(parsed.value);
      }
    } catch (e) {
      if (this.socket) this.teardown(this.socket, e instanceof Error ? e : new Error(String(e)));
      return;
    }
    this.buf = at >= this.buf.length ? Buffer.alloc(0) : this.buf.subarray(at);
  }
}

/** Parses one RESP2 reply at `at`; null when incomplete. */
export function parseReply(b: Buffer, at: number): { value: Reply; next: number } | null {
  if (at >= b.length) return null;
  const eol = b.indexOf(CRLF, at);
  if (eol < 0) return null;
  const type = b[at];
  const line = b.toString('utf8', at + 1, eol);
  const after = eol + 2;
  switch (type) {
    case 0x2b: // +
      return { value: line, next: after };
    case 0x2d: // -
      return { value: new Error(line), next: after };
    case 0x3a: // :
      return { value: Number(line), next: after };
    case 0x24: { // $
      const n = Number(line);
      if (n < 0) return { value: null, next: after };
      if (b.length < after + n + 2) return null;
      return { value: b.toString('utf8', after, after + n), next: after + n + 2 };
    }
    case 0x2a: { // *
      const n = Number(line);
      if (n < 0) return { value: null, next: after };
      const items: Reply[] = [];
      let next = after;
      for (let i = 0; i < n; i++) {
        const item = parseReply(b, next);
        if (!item) return null;
        items.push(item.value);
        next = item.next;
      }
      return { value: items, next };
    }
    default:
      throw new Error(`unexpected RESP reply type ${String.fromCharCode(type ?? 0)}`);
  }
}
