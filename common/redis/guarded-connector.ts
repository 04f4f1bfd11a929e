// ioredis's own connector, with one change: every stream it opens keeps an
// 'error' listener for its whole life.
//
// ioredis listens for a stream's errors with `once` (its connector records the
// first error, the client handles it). A TLS socket can emit 'error' twice: a
// TLS alert is emitted directly (for instance a server that requires a client
// certificate rejecting the handshake after the client has finished it), and
// the connection reset that follows arrives through the stream's destroy path.
// With only `once` listeners the second one is an unhandled 'error' event,
// which ends the process with a stack trace instead of the reason ioredis
// already reported ("redis TLS handshake failed: ..."). Seen once in CI, in
// test/integration/storage/redis-tls.test.ts on valkey.
import { createRequire } from 'node:module';
import type { StandaloneConnectionOptions } from 'ioredis';
import type { NetStream } from 'ioredis/built/types.js';
import type { ErrorEmitter } from 'ioredis/built/connectors/AbstractConnector.js';

// ioredis exports its connector classes only from this CommonJS module.
const { StandaloneConnector } = createRequire(import.meta.url)('ioredis/built/connectors/index.js') as {
  StandaloneConnector: typeof import('ioredis/built/connectors/StandaloneConnector.js').default;
};

export class GuardedConnector extends StandaloneConnector {
  // ioredis constructs a connector with the client's options, typed `unknown` in its ConnectorConstructor.
  constructor(options: unknown) {
    super(options as StandaloneConnectionOptions);
  }

  override async connect(emitter: ErrorEmitter): Promise<NetStream> {
    const stream = await super.connect(emitter);
    // Added before any socket I/O can run (the stream was created on this tick); ioredis's
    // own listeners still see the first error.
    stream.on('error', () => undefined);
    return stream;
  }
}
