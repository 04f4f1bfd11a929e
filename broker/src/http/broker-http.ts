// The broker's http.* settings as the shared HTTP endpoint takes them; an
// endpoint that would bypass the authorizer is refused here (RN3003, http-access.ts).
import { parseClientAuth, type HttpSettings } from '../../../common/http/http-settings.js';
import type { BrokerConfig } from '../config/config.js';
import type { AclService } from '../security/acl/acl-service.js';
import { normalizeHost } from '../security/acl/authorizer.js';
import { checkHttpAuthorization, httpPrincipal } from './http-access.js';
import { ALLOW_ALL, consoleAccess } from './console/access.js';
import type { AccessOf } from './console/routes.js';

export function brokerHttpSettings(c: BrokerConfig): HttpSettings {
  const s: HttpSettings = {
    host: c.httpHost,
    port: c.httpPort,
    bearerToken: c.httpAuthBearerToken,
    basicUser: c.httpAuthBasicUser,
    basicPassword: c.httpAuthBasicPassword,
    keystoreLocation: c.httpSslKeystoreLocation,
    keyPassword: c.httpSslKeyPassword,
    truststoreLocation: c.httpSslTruststoreLocation,
    clientAuth: parseClientAuth(c.httpSslClientAuth, 'http.ssl.client.auth'),
  };
  checkHttpAuthorization(c, s);
  return s;
}

/** What a console request may see: the authorizer's answers for the request's principal and peer address. */
export function consoleAccessOf(acls: AclService, s: HttpSettings, c: Pick<BrokerConfig, 'httpAuthBearerPrincipal'>): AccessOf {
  if (!acls.enabled) return () => ALLOW_ALL;
  return (req) => consoleAccess(acls, httpPrincipal(s, c.httpAuthBearerPrincipal, req.headers.authorization, req.socket), normalizeHost(req.socket.remoteAddress ?? ''));
}
