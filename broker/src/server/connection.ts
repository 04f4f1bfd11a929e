// Thin socket adapter: bytes -> Framer -> Dispatcher -> bytes. Requests on one
// connection are handled one at a time, so responses leave in request order
// (as Kafka does by muting a channel while a request is in progress).
import type { Socket } from 'node:net';
import { Framer } from './framer.js';
import type { Dispatcher } from '../dispatch.js';
import type { Logger } from '../logger.js';

export class Connection {
  private readonly framer: Framer;
  private readonly queue: Buffer[] = [];
  private busy = false;
  private closed = false;

  constructor(
    private readonly socket: Socket,
    readonly id: number,
    private readonly dispatcher: Dispatcher,
    private readonly logger: Logger,
    maxFrameBytes: number,
  ) {
    this.framer = new Framer(maxFrameBytes);
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
    if (res.frames.length === 0) return;
    this.queue.push(...res.frames);
    if (this.queue.length > 64) this.socket.pause(); // back-pressure on pipelining clients
    if (!this.busy) void this.drain();
  }

  private async drain(): Promise<void> {
    this.busy = true;
    try {
      while (this.queue.length && !this.closed) {
        const frame = this.queue.shift()!;
        if (this.queue.length < 16 && this.socket.isPaused()) this.socket.resume();
        const result = await this.dispatcher.dispatch(frame, this.id);
        if (this.closed) return;
        if (result.kind === 'close') {
          this.abort(result.reason);
          return;
        }
        if (result.kind === 'response') {
          const { chunks } = result;
          if (chunks.length === 1) this.socket.write(chunks[0]!);
          else {
            this.socket.cork();
            for (const c of chunks) this.socket.write(c);
            process.nextTick(() => this.socket.uncork());
          }
        }
      }
    } catch (e) {
      this.abort(`internal error: ${e instanceof Error ? e.stack : String(e)}`);
    } finally {
      this.busy = false;
    }
  }

  private abort(reason: string): void {
    this.logger.warn('closing connection', { connection: this.id, remote: `${this.socket.remoteAddress}:${this.socket.remotePort}`, reason });
    this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    this.socket.destroy();
  }
}
