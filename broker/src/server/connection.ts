// Thin socket adapter: bytes -> Framer -> Dispatcher -> bytes. Requests are
// dispatched as they arrive (so a pipelining producer keeps several appends in
// flight), and responses leave strictly in request order, as Kafka requires.
import type { Socket } from 'node:net';
import { Framer } from './framer.js';
import type { Dispatcher, DispatchResult } from '../dispatch.js';
import type { Logger } from '../logger.js';

const MAX_IN_FLIGHT = 32;

export class Connection {
  private readonly framer: Framer;
  private readonly inFlight: Array<Promise<DispatchResult>> = [];
  private writing = false;
  private closed = false;
  /** Kafka reports it as "/<address>" in DescribeGroups. */
  private readonly clientHost: string;

  constructor(
    private readonly socket: Socket,
    readonly id: number,
    private readonly dispatcher: Dispatcher,
    private readonly logger: Logger,
    maxFrameBytes: number,
  ) {
    this.framer = new Framer(maxFrameBytes);
    this.clientHost = `/${socket.remoteAddress ?? ''}`;
    socket.setNoDelay(true);
    socket.on('data', (chunk) => this.onData(chunk));
    socket.on('error', () => this.close());
    socket.on('close', () => { this.closed = true; });
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    const res = this.framer.push(chunk);
    if (res.kind === 'error') {
      this.abort(res.reason);
      return;
    }
    for (const frame of res.frames) {
      // Dispatch synchronously in arrival order: a handler whose state is cached
      // issues its Redis commands before the next request starts.
      this.inFlight.push(this.dispatcher.dispatch(frame, this.id, this.clientHost).catch((e) => ({ kind: 'close', reason: `internal error: ${e instanceof Error ? e.stack : String(e)}` }) as DispatchResult));
    }
    if (this.inFlight.length >= MAX_IN_FLIGHT) this.socket.pause();
    if (!this.writing) void this.flush();
  }

  private async flush(): Promise<void> {
    this.writing = true;
    try {
      while (this.inFlight.length && !this.closed) {
        const result = await this.inFlight[0]!;
        this.inFlight.shift();
        if (this.closed) return;
        if (this.inFlight.length < MAX_IN_FLIGHT / 2 && this.socket.isPaused()) this.socket.resume();
        if (result.kind === 'close') {
          this.abort(result.reason);
          return;
        }
        if (result.kind === 'response') this.write(result.chunks);
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

  private abort(reason: string): void {
    this.logger.warn('closing connection', { connection: this.id, remote: `${this.socket.remoteAddress}:${this.socket.remotePort}`, reason });
    this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.inFlight.length = 0;
    this.socket.destroy();
  }
}
