// A port the broker cannot bind: EADDRINUSE becomes RN3004 naming the address
// and the setting that chose it, so the operator knows what to change. (Kafka
// fails the same way at start: SocketServer's "Socket server failed to bind
// to host:port: Address already in use".) Other errors pass through as they are.
import { RunnelError } from '../../../common/errors.js';

/** `setting` is how the operator picks another port, e.g. `--port (or listeners)` or `http.port`. */
export function listenError(e: unknown, host: string, port: number, setting: string): unknown {
  if ((e as { code?: string } | null)?.code !== 'EADDRINUSE') return e;
  return new RunnelError('LISTEN_PORT_IN_USE', `${host || '0.0.0.0'}:${port} is already taken by another process; stop it or choose another port with ${setting}`, { cause: e });
}
