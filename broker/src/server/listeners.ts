// Starts one KafkaServer per configured listener (Kafka's `listeners`) and
// works out what each advertises: port 0 binds an ephemeral port, and the
// bound port is what gets advertised. The servers share one ListenerGroup
// (max.connections and queued.max.request.bytes are broker-wide).
import { listenError } from './listen-error.js';
import type { BrokerConfig } from '../config/config.js';
import type { Dispatcher } from '../dispatch.js';
import type { Logger } from '../../../common/logger/logger.js';
import type { Endpoint } from '../storage/cluster-store.js';
import { KafkaServer, ListenerGroup, serverLimits } from './server.js';
import { RequestBytesPool } from './request-pool.js';
import { TlsListener } from './tls-listener.js';

export interface RunningListeners {
  /** Each listener's advertised address, in `listeners` order. */
  endpoints: Endpoint[];
  /** Each listener's bound port, in `listeners` order. */
  ports: number[];
  setDispatcher(d: Dispatcher): void;
  /** Open client connections of each listener (the runnel_connections gauge). */
  connections(): Array<{ listener: string; count: number }>;
  /** Closes every listener and its connections; once (later calls share the first). */
  close(): Promise<void>;
}

export async function startListeners(config: BrokerConfig, logger: Logger): Promise<RunningListeners> {
  const servers: KafkaServer[] = [];
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => (closing ??= Promise.all(servers.map((s) => s.close())).then(() => undefined));
  const endpoints: Endpoint[] = [];
  const ports: number[] = [];
  const group = new ListenerGroup(new RequestBytesPool(config.queuedMaxRequestBytes));
  try {
    for (const l of config.listeners) {
      const tls = l.ssl ? new TlsListener(l.name, l.securityProtocol, l.ssl, config.sslReloadIntervalMs, logger) : undefined;
      const server = new KafkaServer(null, logger, serverLimits(config), { name: l.name, securityProtocol: l.securityProtocol, tls }, group);
      servers.push(server);
      // The first listener is the one --port sets; the others come only from `listeners`.
      const setting = l === config.listeners[0] ? '--port (or listeners)' : `listeners (${l.name})`;
      const port = await server.listen(l.host, l.port).catch((e: unknown) => { throw listenError(e, l.host, l.port, setting); });
      ports.push(port);
      endpoints.push({ listener: l.name, host: l.advertisedHost, port: l.advertisedPort === 0 || l.port === 0 ? port : l.advertisedPort });
    }
  } catch (e) {
    await close();
    throw e;
  }
  return {
    endpoints,
    ports,
    setDispatcher: (d) => { for (const s of servers) s.setDispatcher(d); },
    connections: () => servers.map((s) => ({ listener: s.listener.name, count: s.connectionCount })),
    close,
  };
}
