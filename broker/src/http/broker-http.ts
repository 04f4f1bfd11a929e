// The broker's http.* settings as the shared HTTP endpoint takes them.
import { parseClientAuth, type HttpSettings } from '../../../common/http/http-settings.js';
import type { BrokerConfig } from '../config.js';

export function brokerHttpSettings(c: BrokerConfig): HttpSettings {
  return {
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
}
