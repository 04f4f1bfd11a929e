// Thin socket adapter: bytes -> Framer -> Dispatcher -> bytes. Requests are
// dispatched as they arrive (so a pipelining producer keeps several appends in
// flight), and responses leave strictly in request order, as Kafka requires.
//
// What one connection may hold is bounded:
// - request bytes read but not answered count against the server-wide
//   queued.max.request.bytes pool; while it is spent, nothing is read;
// - at most MAX_IN_FLIGHT requests are dispatched at once;
// - a Fetch is dispatched only when nothing else is in flight and the client
//   has read what was sent (consumers send one fetch per connection anyway),
//   so a client that pipelines fetches and never reads holds one response;
// - while more than socket.max.unsent.bytes of responses wait for the client
//   to read them, no request is dispatched and the socket is not read;
// - a frame must arrive whole within socket.partial.request.timeout.ms of its
//   first byte, and a connection with nothing in flight and no traffic for
//   connections.max.idle.ms is closed (both checked by the server's sweep).
import type { Socket } from 'node:net';
import { Framer } from './framer.js';
import type { RequestBytesPool } from './request-pool.js';
import type { Dispatcher, DispatchResult } from '../dispatch.js';
import type { Logger } from '../../../common/logger/logger.js';
import type { Session } from '../security/session.js';
import type { SaslAuthenticator } from '../security/sasl/authenticator.js';

const MAX_IN_FLIGHT = 32;
const FETCH_API_KEY = 1;

export interface ConnectionLimits {
  maxFrameBytes: number;
  maxUnsentBytes: number;
  idleMs: number;
  partialRequestTimeoutMs: number;
}

interface InFlight {
  result: Promise<DispatchResult>;
  /** Request bytes (prefix included) released once answered. */
  bytes: number;
}

export class Connection {
  private readonly framer: Framer;
  /** Whole frames read but not dispatched yet, in arrival order. */
  private readonly queued: Buffer[] = [];
  private readonly inFlight: InFlight[] = [];
  private writing = false;
  private closed = false;
  /** Request bytes this connection holds in the pool. */
  private held = 0;
  private lastActivity = Date.now();
  /** When the first byte of the frame being assembled arrived; null when none is. */
  private partialSince: number | null = null;
  private readonly wake = (): void => this.updateReading();
  readonly id: number;
  /**
   * SASL listeners: the authentication state. Until it succeeds, frames above
   * sasl.server.max.receive.size close the connection, requests are handled
   * one at a time, and the dispatcher lets only ApiVersions, SaslHandshake and
   * SaslAuthenticate through.
   */
  private readonly sasl: SaslAuthenticator | null;

  /** `session`: the connection's identity, made by the listener at accept; authentication sets its principal. */
  constructor(
    private readonly socket: Socket,
    readonly session: Session,
    private readonly dispatcher: Dispatcher,
    private readonly logger: Logger,
    private readonly limits: ConnectionLimits,
    private readonly pool: RequestBytesPool,
  ) {
    this.sasl = dispatcher.saslFor(session);
    this.framer = new Framer(this.sasl ? this.sasl.maxFrameBytes(limits.maxFrameBytes) : limits.maxFrameBytes);
    this.id = session.connectionId;
    socket.setNoDelay(true);
    // No encoding is set, so chunks are Buffers (the typings also allow strings).
    socket.on('data', (chunk) => this.onData(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    socket.on('drain', () => {
      this.lastActivity = Date.now();
      this.pump();
    });
    socket.on('error', () => this.close());
    socket.on('close', () => this.close());
    this.updateReading();
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    const now = Date.now();
    this.lastActivity = now;
    this.pool.acquire(chunk.length);
    this.held += chunk.length;
    if (this.sasl) this.framer.maxFrameBytes = this.sasl.maxFrameBytes(this.limits.maxFrameBytes);
    const res = this.framer.push(chunk);
    if (res.kind === 'error') {
      this.abort(res.reason);
      return;
    }
    if (res.frames.length > 0) this.partialSince = this.framer.pendingBytes > 0 ? now : null;
    else if (this.framer.pendingBytes > 0 && this.partialSince === null) this.partialSince = now;
    for (const frame of res.frames) this.queued.push(frame);
    this.pump();
  }

  /** Dispatches queued frames in arrival order as far as the limits allow, then decides whether to read on. */
  private pump(): void {
    while (!this.closed && !this.throttled() && this.queued.length > 0 && this.inFlight.length < MAX_IN_FLIGHT && !this.outputBacklogged()) {
      const frame = this.queued[0]!;
      if (frame.length >= 2 && frame.readInt16BE(0) === FETCH_API_KEY && (this.inFlight.length > 0 || this.socket.writableNeedDrain)) break;
      // Until SASL authentication succeeds, one request at a time (Kafka mutes the channel while it
      // authenticates): the next is judged in the state the previous one left, and little is buffered.
      if (this.sasl && !this.sasl.authenticated && this.inFlight.length > 0) break;
      this.queued.shift();
      // Dispatch synchronously in arrival order: a handler whose state is cached
      // issues its Redis commands before the next request starts.
      const result = this.dispatcher.dispatch(frame, this.session, this.sasl)
        .catch((e) => ({ kind: 'close', reason: `internal error: ${e instanceof Error ? e.stack : String(e)}` }) as DispatchResult);
      this.inFlight.push({ result, bytes: frame.length + 4 });
    }
    this.updateReading();
    if (!this.writing && this.inFlight.length > 0) void this.flush();
  }

  /**
   * More than socket.max.unsent.bytes wait for the client. Only counted once a
   * write() has reported a full buffer ('drain' then follows and resumes us),
   * so the effective bound is at least the socket's 16 KiB high-water mark.
   */
  private outputBacklogged(): boolean {
    return this.socket.writableNeedDrain && this.socket.writableLength > this.limits.maxUnsentBytes;
  }

  /**
   * While a quota throttles the client (KIP-219), nothing more is read or
   * dispatched: the client is throttled exactly while the timer that ends it
   * is pending (no clock read on the request path).
   */
  private throttledUntil = 0;
  private unthrottle: NodeJS.Timeout | null = null;

  private throttled(): boolean {
    return this.unthrottle !== null;
  }

  private throttle(ms: number): void {
    const until = Date.now() + ms;
    if (until <= this.throttledUntil) return;
    this.throttledUntil = until;
    this.armUnthrottle(ms);
    this.updateReading();
  }

  /**
   * Resumes once the throttle time has passed. A timer may fire a little
   * before Date.now() reaches the deadline: it then waits out the rest, or
   * the connection would stay paused with nothing left to wake it.
   */
  private armUnthrottle(ms: number): void {
    if (this.unthrottle) clearTimeout(this.unthrottle);
    this.unthrottle = setTimeout(() => {
      const left = this.throttledUntil - Date.now();
      if (left > 0) {
        this.armUnthrottle(left);
        return;
      }
      this.unthrottle = null;
      this.lastActivity = Date.now();
      this.pump();
    }, ms);
    this.unthrottle.unref();
  }

  /** Reads from the socket only while every bound has room. */
  private updateReading(): void {
    if (this.closed) return;
    const poolFull = this.pool.exhausted();
    const read = !poolFull && !this.throttled() && this.queued.length === 0 && this.inFlight.length < MAX_IN_FLIGHT && !this.outputBacklogged();
    if (read && this.socket.isPaused()) this.socket.resume();
    else if (!read && !this.socket.isPaused()) this.socket.pause();
    if (poolFull) this.pool.onAvailable(this.wake);
  }

  private async flush(): Promise<void> {
    this.writing = true;
    try {
      while (this.inFlight.length && !this.closed) {
        const head = this.inFlight[0]!;
        const result = await head.result;
        if (this.closed) return;
        this.inFlight.shift();
        this.release(head.bytes);
        if (result.kind === 'close') {
          this.abort(result.reason);
          return;
        }
        if (result.kind === 'response' && result.closeAfter) {
          // Kafka holds back the answer to a failed authentication (connection.failed.authentication.delay.ms).
          const delay = this.sasl?.failureDelayMs ?? 0;
          if (delay > 0) await new Promise((r) => setTimeout(r, delay));
          if (this.closed) return;
          this.write(result.chunks);
          this.finish();
          return;
        }
        if (result.kind === 'response') this.write(result.chunks);
        if (result.throttleMs) this.throttle(result.throttleMs);
        this.lastActivity = Date.now();
        this.pump();
      }
    } finally {
      this.writing = false;
    }
  }

  private write(chunks: Buffer[]): void {
    if (chunks.length === 1) {
      this.socket.write(chunks[0]!);
      return;
    }
    this.socket.cork();
    for (const c of chunks) this.socket.write(c);
    this.socket.uncork();
  }

  private release(n: number): void {
    const k = Math.min(n, this.held);
    this.held -= k;
    this.pool.release(k);
  }

  /** Called periodically by the server: enforces the partial-frame and idle timeouts. */
  sweep(now: number): void {
    if (this.closed) return;
    if (this.partialSince !== null && now - this.partialSince > this.limits.partialRequestTimeoutMs) {
      this.abort(`request frame not complete within socket.partial.request.timeout.ms=${this.limits.partialRequestTimeoutMs} (${this.framer.pendingBytes} bytes received)`);
      return;
    }
    if (this.inFlight.length === 0 && now - this.lastActivity > this.limits.idleMs) {
      this.logger.debug('closing idle connection', { connection: this.id, idleMs: now - this.lastActivity });
      this.close();
    }
  }

  private abort(reason: string): void {
    this.logger.warn('closing connection', { connection: this.id, remote: `${this.socket.remoteAddress}:${this.socket.remotePort}`, reason });
    this.close();
  }

  /** Closes after what was written reaches the client (Kafka answers a failed authentication, then closes). */
  private finish(): void {
    if (this.closed) return;
    this.logger.info('closing connection after its last response (SASL authentication failed or refused)', {
      connection: this.id, remote: `${this.socket.remoteAddress}:${this.socket.remotePort}`, ...(this.sasl?.failureReason ? { reason: this.sasl.failureReason } : {}),
    });
    this.close(true);
  }

  /** `graceful`: send what is buffered, then FIN (destroyed anyway after 5 s); otherwise drop it now. */
  close(graceful = false): void {
    if (this.closed) return;
    this.closed = true;
    if (this.unthrottle) clearTimeout(this.unthrottle);
    this.queued.length = 0;
    this.inFlight.length = 0;
    this.pool.forget(this.wake);
    this.release(this.held);
    if (!graceful) {
      this.socket.destroy();
      return;
    }
    this.socket.end();
    setTimeout(() => this.socket.destroy(), 5000).unref();
  }
}
