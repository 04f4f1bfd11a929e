// Who is on the other end of one client connection. The connection layer owns
// the session: the listener sets its name and security protocol at accept,
// TLS or SASL authentication sets the principal. Handlers read it through the
// request context and never change it.

/** Kafka's security protocols (listener.security.protocol.map values). */
export type SecurityProtocol = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';

/** Kafka's principal for a connection nobody has authenticated. */
export const ANONYMOUS = 'User:ANONYMOUS';

export interface Session {
  readonly connectionId: number;
  /** The peer's IP address, for ACL host matching ("127.0.0.1"). */
  readonly clientAddress: string;
  /** The listener the client came in on (Kafka's listener name, e.g. "PLAINTEXT"). */
  readonly listenerName: string;
  readonly securityProtocol: SecurityProtocol;
  /** "<type>:<name>" as in Kafka ACLs, e.g. "User:alice"; ANONYMOUS until authenticated. */
  principal: string;
}

export function newSession(connectionId: number, clientAddress: string, listenerName = 'PLAINTEXT', securityProtocol: SecurityProtocol = 'PLAINTEXT'): Session {
  return { connectionId, clientAddress, listenerName, securityProtocol, principal: ANONYMOUS };
}
