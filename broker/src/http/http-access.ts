// Who an HTTP request is, for the same authorizer as the Kafka port, and the
// start-up rule that keeps the endpoint from bypassing it (RN3003):
// - with authorizer.class.name set, http.port set needs HTTP credentials
//   (http.auth.basic.*, http.auth.bearer.token or http.ssl.client.auth=required);
//   otherwise /console and /metrics would show to anyone what the Kafka port
//   refuses, so the broker does not start;
// - a basic-auth request is `User:<http.auth.basic.user>`, a bearer-token one
//   http.auth.bearer.principal (User:ANONYMOUS by default: a token names
//   nobody, so it sees what an unauthenticated Kafka client may see, never
//   more), a request with only a client certificate `User:<subject DN>` in
//   RFC 2253 form (Kafka's default principal of an SSL client).
import type { TLSSocket } from 'node:tls';
import { RunnelError } from '../../../common/errors.js';
import type { HttpSettings } from '../../../common/http/http-settings.js';
import { authorizerEnabled } from '../security/acl/acl-service.js';
import { rfc2253 } from '../security/principal-mapping.js';
import { ANONYMOUS } from '../security/session.js';

/** Does the endpoint require a credential of every request (but the open probes)? */
export function requiresCredentials(s: Pick<HttpSettings, 'bearerToken' | 'basicUser' | 'clientAuth'>): boolean {
  return s.bearerToken !== '' || s.basicUser !== '' || s.clientAuth === 'required';
}

/** Throws RN3003 when an authorizer is on and the endpoint would serve data without credentials. */
export function checkHttpAuthorization(c: { authorizerClassName: string; httpPort: number }, s: HttpSettings): void {
  if (c.httpPort <= 0 || !authorizerEnabled(c.authorizerClassName) || requiresCredentials(s)) return;
  throw new RunnelError('HTTP_BYPASSES_AUTHORIZER',
    `authorizer.class.name is set but http.port=${c.httpPort} has no credentials, so the web console and /metrics would show anyone what the Kafka port refuses; `
    + 'set http.auth.basic.user and http.auth.basic.password (or http.auth.bearer.token, or http.ssl.client.auth=required), or leave http.port unset');
}

/** The principal of a request the endpoint has let through (its Authorization header already checked). */
export function httpPrincipal(s: Pick<HttpSettings, 'bearerToken' | 'basicUser'>, bearerPrincipal: string, authorization: string | undefined, socket: unknown): string {
  const scheme = authorization?.slice(0, authorization.indexOf(' ')).toLowerCase();
  if (scheme === 'basic' && s.basicUser) return `User:${s.basicUser}`;
  if (scheme === 'bearer' && s.bearerToken) return bearerPrincipal;
  const cert = (socket as Partial<TLSSocket>).getPeerX509Certificate?.();
  return cert ? `User:${rfc2253(cert.subject)}` : ANONYMOUS;
}
