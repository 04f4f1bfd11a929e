// The Schema Registry's HTTP listeners (schema.registry.listeners, like
// Confluent's `listeners`: http://host:port or https://host:port, comma
// separated), each its own fastify instance, with the TLS and the basic or
// bearer authentication of the broker's HTTP endpoint (common/http), under
// schema.registry.ssl.* and schema.registry.auth.* settings.
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { authorized } from '../../../common/http/http-server.js';
import { HttpConfigError, httpsOptions, parseClientAuth, type HttpSettings } from '../../../common/http/http-settings.js';
import { httpPrincipal, requiresCredentials } from '../http/http-access.js';
import { normalizeHost } from '../security/acl/authorizer.js';
import { aclAccess, OPEN_ACCESS, type AclCheck, type RegistryAccess } from './access.js';
import { CONTENT_TYPE, registryRoutes } from './rest.js';
import type { SchemaRegistry } from './registry.js';
import type { BrokerConfig } from '../config/config.js';

/** The broker settings of the registry. */
export type SchemaRegistryConfig = Pick<BrokerConfig,
  | 'schemaRegistryListeners' | 'schemaRegistryAuthBasicUser' | 'schemaRegistryAuthBasicPassword' | 'schemaRegistryAuthBearerToken'
  | 'schemaRegistryAuthBearerPrincipal' | 'schemaRegistrySslKeystoreLocation' | 'schemaRegistrySslKeyPassword'
  | 'schemaRegistrySslTruststoreLocation' | 'schemaRegistrySslClientAuth'>;

/** The setting names, for the messages of configuration errors. */
export const REGISTRY_KEYS: Record<keyof HttpSettings, string> = {
  host: 'schema.registry.listeners',
  port: 'schema.registry.listeners',
  bearerToken: 'schema.registry.auth.bearer.token',
  basicUser: 'schema.registry.auth.basic.user',
  basicPassword: 'schema.registry.auth.basic.password',
  keystoreLocation: 'schema.registry.ssl.keystore.location',
  keyPassword: 'schema.registry.ssl.key.password',
  truststoreLocation: 'schema.registry.ssl.truststore.location',
  clientAuth: 'schema.registry.ssl.client.auth',
};

export interface RegistryListener {
  tls: boolean;
  settings: HttpSettings;
}

/**
 * The listeners the settings ask for ([] when schema.registry.listeners is
 * empty: the registry is off). A setting that cannot work is an
 * HttpConfigError: a bad URL, https without a keystore, TLS settings with no
 * https listener, a user without a password.
 */
export function registryListeners(c: SchemaRegistryConfig): RegistryListener[] {
  const items = c.schemaRegistryListeners.split(',').map((s) => s.trim()).filter(Boolean);
  const base = {
    bearerToken: c.schemaRegistryAuthBearerToken,
    basicUser: c.schemaRegistryAuthBasicUser,
    basicPassword: c.schemaRegistryAuthBasicPassword,
    keyPassword: c.schemaRegistrySslKeyPassword,
    truststoreLocation: c.schemaRegistrySslTruststoreLocation,
    clientAuth: parseClientAuth(c.schemaRegistrySslClientAuth, REGISTRY_KEYS.clientAuth),
  };
  const out = items.map((item): RegistryListener => {
    let url: URL;
    try {
      url = new URL(item);
    } catch {
      throw new HttpConfigError(`schema.registry.listeners: '${item}' is not a URL (expected http://host:port or https://host:port)`);
    }
    const tls = url.protocol === 'https:';
    if (!tls && url.protocol !== 'http:') throw new HttpConfigError(`schema.registry.listeners: '${item}' (expected the scheme http or https)`);
    if (url.port === '' || (url.pathname !== '/' && url.pathname !== '')) throw new HttpConfigError(`schema.registry.listeners: '${item}' (expected http(s)://host:port, with a port)`);
    if (tls && !c.schemaRegistrySslKeystoreLocation) throw new HttpConfigError(`schema.registry.listeners: '${item}' is https but ${REGISTRY_KEYS.keystoreLocation} is empty`);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const settings: HttpSettings = { ...base, host, port: Number(url.port), keystoreLocation: tls ? c.schemaRegistrySslKeystoreLocation : '' };
    if (!tls) settings.clientAuth = 'none';
    return { tls, settings };
  });
  if (c.schemaRegistrySslKeystoreLocation && !out.some((l) => l.tls)) {
    throw new HttpConfigError(`${REGISTRY_KEYS.keystoreLocation} is set but no listener of schema.registry.listeners is https`);
  }
  for (const l of out) if (l.tls) httpsOptions(l.settings, REGISTRY_KEYS);
  // plain listeners check the credential settings too (a user without a password)
  for (const l of out) if (!l.tls) httpsOptions({ ...l.settings, keyPassword: '', truststoreLocation: '' }, REGISTRY_KEYS);
  return out;
}

/** Does every listener require a credential (so that an authorizer is not bypassed)? */
export function registryRequiresCredentials(ls: readonly RegistryListener[]): boolean {
  return ls.every((l) => requiresCredentials(l.settings));
}

export interface RunningRegistry {
  /** Each listener's URL with its bound port. */
  urls: string[];
  close(): Promise<void>;
}

export interface StartRegistryOptions {
  registry: SchemaRegistry;
  /** The broker's authorizer when ACLs are on; null: every authenticated request may do everything. */
  acls: AclCheck | null;
  bearerPrincipal: string;
  /** Where errors answered 500 go (the broker's logger). */
  onServerError?: (e: unknown, method: string, url: string) => void;
}

async function listen(l: RegistryListener, o: StartRegistryOptions): Promise<{ app: FastifyInstance; url: string }> {
  const s = l.settings;
  const https = httpsOptions(s, REGISTRY_KEYS);
  const app = (https ? Fastify({ logger: false, https }) : Fastify({ logger: false })) as unknown as FastifyInstance;
  app.addHook('onRequest', async (req, reply) => {
    if (authorized(s, req.headers.authorization)) return;
    const challenge = [s.bearerToken ? 'Bearer realm="schema-registry"' : '', s.basicUser ? 'Basic realm="schema-registry", charset="UTF-8"' : ''].filter(Boolean).join(', ');
    await reply.code(401).header('www-authenticate', challenge).type(CONTENT_TYPE).send(JSON.stringify({ error_code: 401, message: 'Unauthorized' }));
  });
  const access = (req: FastifyRequest): RegistryAccess => o.acls
    ? aclAccess(o.acls, httpPrincipal(s, o.bearerPrincipal, req.headers.authorization, req.socket), normalizeHost(req.socket.remoteAddress ?? ''))
    : OPEN_ACCESS;
  registryRoutes(app, { registry: o.registry, access, onServerError: (e, req) => o.onServerError?.(e, req.method, req.url) });
  try {
    await app.listen({ host: s.host, port: s.port });
  } catch (e) {
    await app.close();
    throw e;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : s.port;
  const host = s.host.includes(':') ? `[${s.host}]` : s.host;
  return { app, url: `${l.tls ? 'https' : 'http'}://${host}:${port}` };
}

/** Starts every listener; one that cannot bind closes the others and fails the start. */
export async function startSchemaRegistry(listeners: readonly RegistryListener[], o: StartRegistryOptions): Promise<RunningRegistry> {
  const started: Array<{ app: FastifyInstance; url: string }> = [];
  try {
    for (const l of listeners) started.push(await listen(l, o));
  } catch (e) {
    await Promise.all(started.map((x) => x.app.close()));
    throw e;
  }
  return {
    urls: started.map((x) => x.url),
    close: async () => {
      await Promise.all(started.map((x) => x.app.close()));
    },
  };
}
