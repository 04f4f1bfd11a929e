// The TLS side of an SSL or SASL_SSL listener: the tls.Server with the
// listener's certificates (reloaded from their files while running), Kafka's
// ssl.client.auth, and on SSL listeners the principal from the client
// certificate (Kafka's default principal builder: "User:" + the subject DN in
// RFC 2253 form, through ssl.principal.mapping.rules).
import { createServer, type Server, type TLSSocket } from 'node:tls';
import type { SslSettings } from '../security/tls-settings.js';
import type { Logger } from '../../../common/logger/logger.js';
import { PrincipalMapper, rfc2253 } from '../security/principal-mapping.js';
import type { SecurityProtocol, Session } from '../security/session.js';
import { serverTlsOptions, TlsReloader } from '../security/tls-context.js';

export class TlsListener {
  private readonly mapper: PrincipalMapper;
  private reloader: TlsReloader | null = null;

  /** Reads the certificates now: a listener that cannot serve TLS fails the start (RN3001). */
  constructor(
    readonly name: string,
    private readonly protocol: SecurityProtocol,
    private readonly settings: SslSettings,
    private readonly reloadIntervalMs: number,
    private readonly logger: Logger,
  ) {
    this.mapper = new PrincipalMapper(settings.principalMappingRules);
    serverTlsOptions(settings);
  }

  createServer(handshakeTimeoutMs: number, onSecure: (socket: TLSSocket) => void): Server {
    const auth = this.settings.clientAuth;
    const server = createServer({
      ...serverTlsOptions(this.settings),
      // requested: a certificate, if sent, must be valid (checked in authenticate()); required: one must be sent.
      requestCert: auth !== 'none',
      rejectUnauthorized: auth === 'required',
      handshakeTimeout: handshakeTimeoutMs,
    }, onSecure);
    // With a listener here Node leaves the socket open: a failed or timed-out handshake is closed by us.
    server.on('tlsClientError', (err, socket) => {
      this.logger.debug('TLS handshake failed', { listener: this.name, remote: socket.remoteAddress, reason: err.message });
      socket.destroy();
    });
    this.reloader = new TlsReloader(this.name, this.settings, (o) => server.setSecureContext(o), this.logger);
    this.reloader.start(this.reloadIntervalMs);
    return server;
  }

  /** Polls the certificate files once now (tests; the timer does it every ssl.reload.interval.ms). */
  reloadNow(): void {
    this.reloader?.check();
  }

  /**
   * Sets the session's principal from the client certificate (SSL listeners;
   * on SASL_SSL, SASL names the principal). False, with the socket closed, if
   * the client is refused: an invalid certificate under ssl.client.auth=requested,
   * or a subject no mapping rule applies to.
   */
  authenticate(socket: TLSSocket, session: Session): boolean {
    const cert = socket.getPeerX509Certificate();
    if (!cert) return true; // no certificate: User:ANONYMOUS
    const refuse = (reason: string): false => {
      this.logger.warn('TLS client refused', { listener: this.name, remote: socket.remoteAddress, reason });
      socket.destroy();
      return false;
    };
    if (!socket.authorized) return refuse(`client certificate not trusted: ${String(socket.authorizationError)}`);
    if (this.protocol !== 'SSL') return true;
    const dn = rfc2253(cert.subject);
    const name = this.mapper.map(dn);
    if (name === null) return refuse(`no ssl.principal.mapping.rules rule applies to ${dn}`);
    session.principal = `User:${name}`;
    return true;
  }

  stop(): void {
    this.reloader?.stop();
  }
}
