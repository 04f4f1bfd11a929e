// Health, readiness and Prometheus metrics over HTTP (fastify), shared by the
// broker and the archiver processes. Each process supplies its own readiness
// probe and metrics registry; both take the same settings (http-settings.ts):
// the address to bind, optional bearer-token or basic authentication (every
// path but /health and /ready), optional TLS from PEM files.
import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { httpsOptions, type HttpSettings } from './http-settings.js';

export interface HttpProbes {
  /** Resolves true when the process can serve (e.g. Redis reachable). */
  ready(): Promise<boolean>;
  /** What /metrics exposes. */
  registry: Registry;
  /** More GET routes of the process (the broker's web console), behind the same authentication and TLS. */
  routes?: (app: FastifyInstance) => void;
}

export interface RunningHttp {
  /** The bound port (the configured one, or the one the OS chose for 0). */
  port: number;
  /** What the start-up log says of the endpoint (no secret). */
  describe: { host: string; port: number; tls: boolean; clientAuth: string; auth: string };
  close(): Promise<void>;
}

/**
 * Paths served without credentials: the liveness and readiness probes show no
 * data (ok, ready or unavailable), and Kubernetes probes cannot send a secret.
 */
export const OPEN_PATHS: ReadonlySet<string> = new Set(['/health', '/ready']);

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
/** Constant-time comparison (of digests, so lengths leak nothing either). */
const same = (a: string, b: string): boolean => timingSafeEqual(digest(a), digest(b));

/** True when the Authorization header carries a configured credential (or none is configured). */
export function authorized(settings: Pick<HttpSettings, 'bearerToken' | 'basicUser' | 'basicPassword'>, header: string | undefined): boolean {
  const { bearerToken, basicUser, basicPassword } = settings;
  if (!bearerToken && !basicUser) return true;
  if (!header) return false;
  const space = header.indexOf(' ');
  const scheme = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1).trim();
  if (space > 0 && scheme === 'bearer' && bearerToken) return same(value, bearerToken);
  if (space > 0 && scheme === 'basic' && basicUser) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return false;
    // both compared, always: the time taken does not tell which one was wrong
    const userOk = same(decoded.slice(0, colon), basicUser);
    const passwordOk = same(decoded.slice(colon + 1), basicPassword);
    return userOk && passwordOk;
  }
  return false;
}

function challenge(s: HttpSettings): string {
  return [s.bearerToken ? 'Bearer realm="runnel"' : '', s.basicUser ? 'Basic realm="runnel", charset="UTF-8"' : ''].filter(Boolean).join(', ');
}

export async function startHttp(settings: HttpSettings, probes: HttpProbes): Promise<RunningHttp> {
  const https = httpsOptions(settings);
  const app = (https ? Fastify({ logger: false, https }) : Fastify({ logger: false })) as unknown as FastifyInstance;
  app.addHook('onRequest', async (req, reply) => {
    const path = req.url.split('?', 1)[0]!;
    if (OPEN_PATHS.has(path) || authorized(settings, req.headers.authorization)) return;
    await reply.code(401).header('www-authenticate', challenge(settings)).send({ status: 'unauthorized' });
  });
  app.get('/health', async () => ({ status: 'ok' }));
  app.get('/ready', async (_req, reply) => {
    const ok = await probes.ready().catch(() => false);
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ready' : 'unavailable' });
  });
  app.get('/metrics', async (_req, reply) => reply.type(probes.registry.contentType).send(await probes.registry.metrics()));
  probes.routes?.(app);
  await app.listen({ host: settings.host, port: settings.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  const auth = [settings.bearerToken ? 'bearer' : '', settings.basicUser ? 'basic' : ''].filter(Boolean).join('+') || 'none';
  return {
    port,
    describe: { host: settings.host, port, tls: https !== null, clientAuth: settings.clientAuth, auth },
    close: () => app.close(),
  };
}
