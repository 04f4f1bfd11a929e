// Health, readiness and Prometheus metrics over HTTP (fastify), shared by the
// broker and the archiver processes. Each process supplies its own probes.
import Fastify, { type FastifyInstance } from 'fastify';

export interface Gauge {
  name: string;
  help: string;
  samples: Array<{ labels?: Record<string, string | number>; value: number }>;
}

export interface HttpProbes {
  /** Resolves true when the process can serve (e.g. Redis reachable). */
  ready(): Promise<boolean>;
  metrics(): Promise<Gauge[]>;
}

const escape = (v: string | number): string => String(v).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

/** Prometheus text exposition format 0.0.4. */
export function renderMetrics(gauges: Gauge[]): string {
  const out: string[] = [];
  for (const g of gauges) {
    out.push(`# HELP ${g.name} ${g.help}`, `# TYPE ${g.name} gauge`);
    for (const s of g.samples) {
      const labels = s.labels ? `{${Object.entries(s.labels).map(([k, v]) => `${k}="${escape(v)}"`).join(',')}}` : '';
      out.push(`${g.name}${labels} ${Number.isFinite(s.value) ? s.value : 'NaN'}`);
    }
  }
  return `${out.join('\n')}\n`;
}

export async function startHttp(host: string, port: number, probes: HttpProbes): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  app.get('/health', async () => ({ status: 'ok' }));
  app.get('/ready', async (_req, reply) => {
    const ok = await probes.ready().catch(() => false);
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ready' : 'unavailable' });
  });
  app.get('/metrics', async (_req, reply) => reply.type('text/plain; version=0.0.4').send(renderMetrics(await probes.metrics())));
  await app.listen({ host, port });
  return app;
}
