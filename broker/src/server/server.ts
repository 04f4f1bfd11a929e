// One Kafka listener: accepts connections (at most max.connections at once),
// shares one queued.max.request.bytes pool between them, and sweeps them for
// the partial-frame and idle timeouts. A PLAINTEXT/SASL_PLAINTEXT listener is
// a net.Server, an SSL/SASL_SSL one a tls.Server; both hand their sockets,
// with a Session naming the listener and its security protocol, to the same
// Connection code.
import { createServer, type Server, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { BrokerConfig } from '../config/config.js';
import { newSession, type SecurityProtocol, type Session } from '../security/session.js';
import { TlsListener } from './tls-listener.js';
import { Connection, type ConnectionLimits } from './connection.js';
import { RequestBytesPool } from './request-pool.js';
import type { Dispatcher } from '../dispatch.js';
import type { Logger } from '../../../common/logger/logger.js';

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

/** The listener a server stands for; the default is Kafka's plain PLAINTEXT listener. */
export interface ListenerSpec {
  name: string;
  securityProtocol: SecurityProtocol;
  /** SSL and SASL_SSL listeners: their TLS settings and how often their files are re-read. */
  tls?: TlsListener;
}

const PLAINTEXT: ListenerSpec = { name: 'PLAINTEXT', securityProtocol: 'PLAINTEXT' };

/** Connection ids are unique in the process, over all listeners. */
let nextConnectionId = 1;

/**
 * What all of a broker's listeners share: Kafka's max.connections and
 * queued.max.request.bytes bound the broker, not each listener.
 */
/** Connections held while the broker starts, at most. */
const MAX_WAITING = 1024;

export class ListenerGroup {
  /** Accepted sockets still open, TLS handshakes in progress included. */
  open = 0;
  lastDropLog = 0;
  constructor(public pool: RequestBytesPool) {}
}

export class KafkaServer {
  private server: Server | null = null;
  private readonly connections = new Set<Connection>();
  /** Every accepted socket, TLS handshakes in progress included: close() ends them all. */
  private readonly sockets = new Set<Socket>();
  private limits: ServerLimits;
  private readonly group: ListenerGroup;
  private sweeper: NodeJS.Timeout | null = null;

  /**
   * The dispatcher may arrive after listen() (the advertised port is known only
   * then); the limits come from its broker settings, or from `limits`.
   */
  constructor(
    private dispatcher: Dispatcher | null,
    private readonly logger: Logger,
    limits: number | ServerLimits,
    readonly listener: ListenerSpec = PLAINTEXT,
    group?: ListenerGroup,
  ) {
    this.limits = typeof limits === 'number' ? { ...UNLIMITED, maxFrameBytes: limits } : limits;
    this.group = group ?? new ListenerGroup(new RequestBytesPool(this.limits.queuedMaxRequestBytes));
  }

  /** Open client connections (the runnel_connections gauge). */
  get connectionCount(): number {
    return this.connections.size;
  }

  setDispatcher(d: Dispatcher): void {
    this.dispatcher = d;
    this.applyLimits(serverLimits(d.config));
    // Connections accepted while the broker was starting are served from now on (Kafka, too, binds first and processes requests once started).
    const waiting = this.waiting.splice(0);
    for (const [socket, session] of waiting) if (!socket.destroyed) this.serve(socket, session).resume();
  }

  /** Sockets accepted before the dispatcher arrived, paused (their bytes wait in the socket). */
  private readonly waiting: [Socket, Session][] = [];

  private serve(socket: Socket, session: Session): Socket {
    const conn = new Connection(socket, session, this.dispatcher!, this.logger, this.limits, this.group.pool);
    this.connections.add(conn);
    socket.on('close', () => this.connections.delete(conn));
    return socket;
  }

  private applyLimits(l: ServerLimits): void {
    this.limits = l;
    // Listeners of one broker share the group and get the same settings: only a changed limit makes a new pool.
    if (this.group.pool.limit !== l.queuedMaxRequestBytes) this.group.pool = new RequestBytesPool(l.queuedMaxRequestBytes);
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
      const accept = (socket: Socket, session: Session): void => {
        if (!this.dispatcher) {
          // still starting: held until setDispatcher (bounded; a connection past the bound is closed)
          if (this.waiting.length >= MAX_WAITING) {
            socket.destroy();
            return;
          }
          socket.pause();
          this.waiting.push([socket, session]);
          return;
        }
        this.serve(socket, session);
      };
      const session = (socket: Socket): Session => newSession(nextConnectionId++, socket.remoteAddress ?? '', this.listener.name, this.listener.securityProtocol);
      const tls = this.listener.tls;
      // TLS: the handshake must finish within socket.partial.request.timeout.ms; the client certificate names the principal (SSL).
      const server = tls
        ? tls.createServer(this.limits.partialRequestTimeoutMs, (socket: TLSSocket) => {
          const s = session(socket);
          if (tls.authenticate(socket, s)) accept(socket, s);
        })
        : createServer();
      // Runs before the TLS layer sees the socket; a plain socket is accepted here.
      server.prependListener('connection', (socket: Socket) => {
        if (!this.admit(socket)) return;
        if (!tls) accept(socket, session(socket));
      });
      server.once('error', reject);
      server.listen(port, host, () => {
        this.server = server;
        const addr = server.address();
        resolve(typeof addr === 'object' && addr ? addr.port : port);
      });
    });
  }

  /** Kafka's max.connections over all the broker's listeners: a connection over the limit is closed at accept. */
  private admit(socket: Socket): boolean {
    const max = this.limits.maxConnections;
    if (max > 0 && this.group.open >= max) {
      const now = Date.now();
      if (now - this.group.lastDropLog >= 10_000) {
        this.group.lastDropLog = now;
        this.logger.warn('max.connections reached: closing new connections', { maxConnections: max, listener: this.listener.name, remote: socket.remoteAddress });
      }
      socket.destroy();
      return false;
    }
    this.group.open++;
    this.sockets.add(socket);
    socket.once('close', () => {
      this.group.open--;
      this.sockets.delete(socket);
    });
    return true;
  }

  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.listener.tls?.stop();
    for (const c of this.connections) c.close();
    for (const s of this.sockets) s.destroy();
    for (const [socket] of this.waiting.splice(0)) socket.destroy();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}
