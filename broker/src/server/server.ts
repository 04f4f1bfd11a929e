// The Kafka listener: accepts connections (at most max.connections at once),
// shares one queued.max.request.bytes pool between them, and sweeps them for
// the partial-frame and idle timeouts.
import { createServer, type Server } from 'node:net';
import type { BrokerConfig } from '../config.js';
import { Connection, type ConnectionLimits } from './connection.js';
import { RequestBytesPool } from './request-pool.js';
import type { Dispatcher } from '../dispatch.js';
import type { Logger } from '../logger.js';

export interface ServerLimits extends ConnectionLimits {
  /** <= 0: unlimited. */
  maxConnections: number;
  /** <= 0: unlimited (Kafka's -1). */
  queuedMaxRequestBytes: number;
}

/** The listener's limits from the broker settings (Kafka's names where Kafka has one). */
export function serverLimits(c: BrokerConfig): ServerLimits {
  return {
    maxFrameBytes: c.socketRequestMaxBytes,
    maxUnsentBytes: c.socketMaxUnsentBytes,
    idleMs: c.connectionsMaxIdleMs,
    partialRequestTimeoutMs: c.socketPartialRequestTimeoutMs,
    maxConnections: c.maxConnections,
    queuedMaxRequestBytes: c.queuedMaxRequestBytes,
  };
}

const UNLIMITED: ServerLimits = {
  maxFrameBytes: 104857600, maxUnsentBytes: 1048576, idleMs: 600_000, partialRequestTimeoutMs: 30_000, maxConnections: 0, queuedMaxRequestBytes: 0,
};

export class KafkaServer {
  private server: Server | null = null;
  private readonly connections = new Set<Connection>();
  private nextId = 1;
  private limits: ServerLimits;
  private pool: RequestBytesPool;
  private sweeper: NodeJS.Timeout | null = null;
  private lastDropLog = 0;

  /**
   * The dispatcher may arrive after listen() (the advertised port is known only
   * then); the limits come from its broker settings, or from `limits`.
   */
  constructor(private dispatcher: Dispatcher | null, private readonly logger: Logger, limits: number | ServerLimits) {
    this.limits = typeof limits === 'number' ? { ...UNLIMITED, maxFrameBytes: limits } : limits;
    this.pool = new RequestBytesPool(this.limits.queuedMaxRequestBytes);
  }

  /** Open client connections (the runnel_connections gauge). */
  get connectionCount(): number {
    return this.connections.size;
  }

  setDispatcher(d: Dispatcher): void {
    this.dispatcher = d;
    this.applyLimits(serverLimits(d.config));
  }

  private applyLimits(l: ServerLimits): void {
    this.limits = l;
    this.pool = new RequestBytesPool(l.queuedMaxRequestBytes);
    if (this.server) this.server.maxConnections = l.maxConnections > 0 ? l.maxConnections : Infinity;
    this.startSweeper();
  }

  private startSweeper(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    const every = Math.max(10, Math.min(1000, Math.floor(Math.min(this.limits.idleMs, this.limits.partialRequestTimeoutMs) / 4)));
    this.sweeper = setInterval(() => {
      const now = Date.now();
      for (const c of this.connections) c.sweep(now);
    }, every);
    this.sweeper.unref();
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const server = createServer((socket) => {
        if (!this.dispatcher) {
          socket.destroy(); // still starting
          return;
        }
        const conn = new Connection(socket, this.nextId++, this.dispatcher, this.logger, this.limits, this.pool);
        this.connections.add(conn);
        socket.on('close', () => this.connections.delete(conn));
      });
      if (this.limits.maxConnections > 0) server.maxConnections = this.limits.maxConnections;
      // Kafka's max.connections: connections over the limit are closed at accept.
      server.on('drop', (d) => {
        const now = Date.now();
        if (now - this.lastDropLog < 10_000) return;
        this.lastDropLog = now;
        this.logger.warn('max.connections reached: closing new connections', { maxConnections: this.limits.maxConnections, remote: d?.remoteAddress });
      });
      server.once('error', reject);
      server.listen(port, host, () => {
        this.server = server;
        const addr = server.address();
        resolve(typeof addr === 'object' && addr ? addr.port : port);
      });
    });
  }

  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    for (const c of this.connections) c.close();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}
