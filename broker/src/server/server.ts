import { createServer, type Server } from 'node:net';
import { Connection } from './connection.js';
import type { Dispatcher } from '../dispatch.js';
import type { Logger } from '../logger.js';

export class KafkaServer {
  private server: Server | null = null;
  private readonly connections = new Set<Connection>();
  private nextId = 1;

  /** The dispatcher may arrive after listen() (the advertised port is known only then). */
  constructor(private dispatcher: Dispatcher | null, private readonly logger: Logger, private readonly maxFrameBytes: number) {}

  setDispatcher(d: Dispatcher): void {
    this.dispatcher = d;
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const server = createServer((socket) => {
        if (!this.dispatcher) {
          socket.destroy(); // still starting
          return;
        }
        const conn = new Connection(socket, this.nextId++, this.dispatcher, this.logger, this.maxFrameBytes);
        this.connections.add(conn);
        socket.on('close', () => this.connections.delete(conn));
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
    for (const c of this.connections) c.close();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}
