// The hot write path: a dedicated Redis connection that sends the fenced
// append (`MULTI; EVALSHA <append-fence.lua> ...; XADD ... <batch>; EXEC`) with the batch written to
// the socket as its own Buffer (no copy into a command buffer), coalesces the
// commands of one event loop turn into a single write, and parses the few
// reply types it needs. WAIT / WAITAOF go over the same connection, so they
// cover these appends. Commands given as `setup` (SCRIPT LOAD) run first on
// every new connection, before anything queued behind them. A `rediss://`
// URL gets the same connection over TLS (`tls.connect` with the broker's
// redis.tls.* options): the framing, corking and ordering are the same, the
// batch is encrypted straight from its Buffer.
import net from 'node:net';
import tls from 'node:tls';

export type Reply = string | number | null | Error | Reply[];

interface Pending {
  resolve(r: Reply): void;
  reject(e: Error): void;
  sentAt: number;
  /** Replies before this command's own that are consumed silently (MULTI's +OK and +QUEUED). */
  skip: number;
  /** The first error among the skipped replies (a MOVED instead of +QUEUED): reported instead of EXEC's EXECABORT. */
  skippedError?: Error;
}

/** A reply slower than this means Redis is gone without closing the socket: drop the connection. */
const REPLY_TIMEOUT_MS = 10_000;

export interface AppendTarget {
  host: string;
  port: number;
  username?: string;
  password?: string;
  db?: number;
  /** Present for rediss:// URLs: the connection is TLS. */
  tls?: true;
  /** tls.connect options (CA, client certificate, servername...); host and port come from the URL. */
  tlsOptions?: tls.ConnectionOptions;
}

/**
 * redis[s]://[user:pass@]host:port[/db]; null for anything this connection
 * does not speak (unix sockets, other schemes). `tlsOptions` apply to
 * rediss:// only (the same options ioredis gets as `tls`).
 */
export function parseAppendTarget(url: string, tlsOptions: tls.ConnectionOptions = {}): AppendTarget | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') return null;
  const db = u.pathname && u.pathname !== '/' ? Number(u.pathname.slice(1)) : undefined;
  const target: AppendTarget = {
    host: u.hostname || '127.0.0.1',
    port: u.port ? Number(u.port) : 6379,
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: Number.isInteger(db) ? db : undefined,
  };
  if (u.protocol === 'rediss:') {
    target.tls = true;
    target.tlsOptions = tlsOptions;
  }
  return target;
}

const CRLF = Buffer.from('\r\n');

/** RESP array of bulk strings; Buffers stay separate chunks (not copied). */
export function encodeParts(args: Array<string | Buffer>): Array<string | Buffer> {
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

export function bulk(s: string): string {
  return `$${Buffer.byteLength(s)}\r\n${s}\r\n`;
}

export class AppendConnection {
  protected socket: net.Socket | null = null;
  private connecting: Promise<void> | null = null;
  protected readonly pending: Pending[] = [];
  private buf: Buffer = Buffer.alloc(0);
  private corked = false;
  /** Connected and set up: commands go straight to the socket. */
  private open = false;
  /** Commands issued while not open, in issue order. */
  private readonly backlog: Array<{ parts: Array<string | Buffer>; skip: number; resolve(r: Reply): void; reject(e: Error): void }> = [];
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
      const { host, port } = this.target;
      const s: net.Socket = this.target.tls
        // The certificate is checked against `servername` if given, else against the host (as ioredis does).
        ? tls.connect({ ...this.target.tlsOptions, host, port })
        : net.connect({ host, port });
      s.setNoDelay(true);
      s.setKeepAlive(true, 5_000);
      const fail = (e: Error): void => {
        this.teardown(s, e);
        reject(e);
      };
      // `on`, not `once`: a TLS socket can emit 'error' twice (a TLS alert, then the reset), and an
      // 'error' without a listener ends the process (common/redis/guarded-connector.ts).
      s.on('error', fail);
      // A TLS socket is usable once the handshake is done (and the server's certificate accepted).
      s.once(this.target.tls ? 'secureConnect' : 'connect', () => {
        s.off('error', fail);
        s.on('error', (e) => this.teardown(s, e));
        s.on('close', () => this.teardown(s, new Error('redis append connection closed')));
        s.on('data', (d) => this.onData(typeof d === 'string' ? Buffer.from(d) : d));
        this.socket = s;
        const setup: string[][] = [];
        if (this.target.password) setup.push(this.target.username ? ['AUTH', this.target.username, this.target.password] : ['AUTH', this.target.password]);
        if (this.target.db) setup.push(['SELECT', String(this.target.db)]);
        setup.push(...this.setup);
        Promise.all(setup.map((cmd) => this.send(encodeParts(cmd), s, 0))).then((rs) => {
          const err = rs.find((r) => r instanceof Error);
          if (err) {
            fail(err as Error);
            return;
          }
          // Commands issued while connecting go out first, in the order they were issued.
          if (this.socket !== s) return; // torn down meanwhile: the backlog was failed
          const backlog = this.backlog.splice(0);
          for (const b of backlog) this.send(b.parts, s, b.skip).then(b.resolve, b.reject);
          this.open = true;
          resolve();
        }, fail);
      });
    }).finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  protected teardown(s: net.Socket, e: Error): void {
    s.destroy();
    if (this.socket !== s) return; // an older socket closing late: its commands were failed already
    this.socket = null;
    this.open = false;
    for (const b of this.backlog.splice(0)) b.reject(e);
    this.buf = Buffer.alloc(0);
    this.corked = false;
    const waiting = this.pending.splice(0);
    for (const p of waiting) p.reject(e);
  }

  /**
   * Sends now when the connection is open; otherwise queues the command in
   * issue order behind the connection's setup. Appends are fenced by offset,
   * so their order on the wire must be the order they were issued.
   */
  private dispatch(parts: Array<string | Buffer>, skip: number): Promise<Reply> {
    if (this.closed) return Promise.reject(new Error('append connection closed'));
    if (this.open && this.socket) return this.send(parts, this.socket, skip);
    return new Promise<Reply>((resolve, reject) => {
      this.backlog.push({ parts, skip, resolve, reject });
      if (!this.connecting) this.connect().catch((e: Error) => { for (const b of this.backlog.splice(0)) b.reject(e); });
    });
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

  /** Writes a command; `skip` replies before its own are consumed silently (MULTI's +OK and +QUEUED). */
  private send(parts: Array<string | Buffer>, s: net.Socket, skip: number): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      this.pending.push({ resolve, reject, sentAt: Date.now(), skip });
      this.write(s, parts);
      this.watch();
    });
  }

  /** A command of plain string arguments. */
  command(args: string[]): Promise<Reply> {
    return this.dispatch(encodeParts(args), 0);
  }

  /**
   * A command whose arguments may be Buffers: each Buffer goes to the socket
   * as it is; the string arguments around it are joined into one header.
   */
  commandParts(args: Array<string | Buffer>): Promise<Reply> {
    return this.dispatch(encodeParts(args), 0);
  }

  /**
   * Pre-encoded RESP (see encodeParts) sent as one command whose reply is
   * preceded by `skip` replies consumed here; for the hot append path, which
   * caches the constant parts of its commands.
   */
  raw(parts: Array<string | Buffer>, skip: number): Promise<Reply> {
    return this.dispatch(parts, skip);
  }

  close(): void {
    this.closed = true;
    if (this.socket) this.teardown(this.socket, new Error('append connection closed'));
  }

  protected onData(d: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
    let at = 0;
    try {
      for (;;) {
        const parsed = parseReply(this.buf, at);
        if (!parsed) break;
        at = parsed.next;
        const head = this.pending[0];
        if (head && head.skip > 0) {
          head.skip--;
          if (parsed.value instanceof Error) head.skippedError ??= parsed.value;
        } else {
          const p = this.pending.shift();
          p?.resolve(p.skippedError && parsed.value instanceof Error ? p.skippedError : parsed.value);
        }
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
