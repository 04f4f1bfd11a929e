// Confluent's Schema Registry REST API on a fastify instance: the routes, the
// bodies Confluent's clients send and parse, and errors as
// `{"error_code": N, "message": "..."}`. Requests and answers are JSON
// (content types application/vnd.schemaregistry.v1+json,
// application/vnd.schemaregistry+json and application/json are all read).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as E from './errors.js';
import { RegistryError } from './errors.js';
import type { SchemaType } from './model.js';
import { parseVersion, schemaInput, type SchemaRegistry, type SubjectVersion } from './registry.js';
import type { RegistryAccess, SubjectOp } from './access.js';

export const CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';

type Req = FastifyRequest<{ Params: Record<string, string>; Querystring: Record<string, string | undefined> }>;

/** Query flags: Confluent's clients send true/false, Python's True/False. */
const flag = (v: string | undefined): boolean => v?.toLowerCase() === 'true';

function schemaId(v: string | undefined): number {
  if (!v || !/^\d{1,10}$/.test(v)) throw E.schemaNotFound();
  return Number(v);
}

/** A schema as Confluent shows it: schemaType only when not AVRO, references only when there are some. */
function typed(schemaType: SchemaType, references: readonly unknown[]): Record<string, unknown> {
  return { ...(schemaType === 'AVRO' ? {} : { schemaType }), ...(references.length ? { references } : {}) };
}

const versionBody = (v: SubjectVersion): Record<string, unknown> =>
  ({ subject: v.subject, version: v.version, id: v.id, ...typed(v.schemaType, v.references), schema: v.schema });

export interface RestOptions {
  registry: SchemaRegistry;
  /** What the request's principal may do (OPEN_ACCESS when authorization is off). */
  access(req: FastifyRequest): RegistryAccess;
  /** Called with every error answered 500 (a store that fails), for the broker's log. */
  onServerError?: (e: unknown, req: FastifyRequest) => void;
}

export function registryRoutes(app: FastifyInstance, o: RestOptions): void {
  const r = o.registry;
  // Every body is JSON whatever its declared type (clients send the vnd types, curl users application/json).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (e) {
      done(E.badRequest(`Unrecognized JSON body: ${(e as Error).message}`), undefined);
    }
  });
  app.setErrorHandler((err: unknown, req, reply) => {
    const e = err instanceof RegistryError ? err
      : typeof (err as { statusCode?: unknown }).statusCode === 'number' && (err as { statusCode: number }).statusCode < 500
        ? new RegistryError((err as { statusCode: number }).statusCode, (err as { statusCode: number }).statusCode, (err as Error).message)
        : E.storeError((err as Error).message);
    if (e.status >= 500) o.onServerError?.(err, req);
    return send(reply.code(e.status), e.body());
  });
  app.setNotFoundHandler((req, reply) => send(reply.code(404), { error_code: 404, message: `HTTP 404 Not Found: ${req.method} ${req.url.split('?', 1)[0]}` }));

  const send = (reply: FastifyReply, body: unknown): FastifyReply => reply.type(CONTENT_TYPE).send(JSON.stringify(body));
  const subjectAllowed = (req: FastifyRequest, op: SubjectOp, subject: string): void => {
    if (!o.access(req).subject(op, subject)) throw E.forbidden(`subject '${subject}'`);
  };
  const globalAllowed = (req: FastifyRequest, op: 'read' | 'alter'): void => {
    if (!o.access(req).global(op)) throw E.forbidden('the global registry settings');
  };
  /** A schema id may be read by whoever may read one of the subjects using it, or the global settings. */
  const idAllowed = async (req: FastifyRequest, id: number): Promise<void> => {
    const access = o.access(req);
    if (access.global('read')) return;
    const subjects = await r.idSubjects(id, true);
    if (!subjects.some((s) => access.subject('read', s))) throw E.forbidden(`schema ${id}`);
  };
  const get = (path: string, h: (req: Req) => Promise<unknown>): void => {
    app.get(path, async (req, reply) => send(reply, await h(req as Req)));
  };
  const route = (method: 'POST' | 'PUT' | 'DELETE', path: string, h: (req: Req) => Promise<unknown>): void => {
    app.route({ method, url: path, handler: async (req, reply) => send(reply, await h(req as Req)) });
  };

  get('/', async () => ({}));
  get('/schemas/types', async () => r.schemaTypes());
  get('/schemas/ids/:id', async (req) => {
    const id = schemaId(req.params.id);
    const s = await r.schemaById(id);
    await idAllowed(req, id);
    return { ...typed(s.schemaType, s.references), schema: s.schema };
  });
  app.get('/schemas/ids/:id/schema', async (req, reply) => {
    const id = schemaId((req as Req).params.id);
    const s = await r.schemaById(id);
    await idAllowed(req, id);
    return reply.type(CONTENT_TYPE).send(s.schema);
  });
  get('/schemas/ids/:id/versions', async (req) => {
    const id = schemaId(req.params.id);
    const vs = await r.idVersions(id, flag(req.query.deleted));
    await idAllowed(req, id);
    const access = o.access(req);
    return vs.filter((v) => access.subject('read', v.subject));
  });
  get('/schemas/ids/:id/subjects', async (req) => {
    const id = schemaId(req.params.id);
    const ss = await r.idSubjects(id, flag(req.query.deleted));
    await idAllowed(req, id);
    const access = o.access(req);
    return ss.filter((s) => access.subject('read', s));
  });

  get('/subjects', async (req) => {
    const access = o.access(req);
    return (await r.subjects({ deleted: flag(req.query.deleted), prefix: req.query.subjectPrefix ?? '' })).filter((s) => access.subject('read', s));
  });
  get('/subjects/:subject/versions', async (req) => {
    subjectAllowed(req, 'read', req.params.subject!);
    return r.versions(req.params.subject!, flag(req.query.deleted));
  });
  get('/subjects/:subject/versions/:version', async (req) => {
    subjectAllowed(req, 'read', req.params.subject!);
    return versionBody(await r.version(req.params.subject!, parseVersion(req.params.version!), flag(req.query.deleted)));
  });
  app.get('/subjects/:subject/versions/:version/schema', async (req, reply) => {
    const p = (req as Req).params;
    subjectAllowed(req, 'read', p.subject!);
    const v = await r.version(p.subject!, parseVersion(p.version!), flag((req as Req).query.deleted));
    return reply.type(CONTENT_TYPE).send(v.schema);
  });
  get('/subjects/:subject/versions/:version/referencedby', async (req) => {
    subjectAllowed(req, 'read', req.params.subject!);
    return r.referencedBy(req.params.subject!, parseVersion(req.params.version!));
  });
  route('POST', '/subjects/:subject/versions', async (req) => {
    subjectAllowed(req, 'write', req.params.subject!);
    return r.register(req.params.subject!, schemaInput(req.body));
  });
  route('POST', '/subjects/:subject', async (req) => {
    subjectAllowed(req, 'read', req.params.subject!);
    return versionBody(await r.lookup(req.params.subject!, schemaInput(req.body), flag(req.query.deleted)));
  });
  route('DELETE', '/subjects/:subject', async (req) => {
    subjectAllowed(req, 'write', req.params.subject!);
    return r.deleteSubject(req.params.subject!, flag(req.query.permanent));
  });
  route('DELETE', '/subjects/:subject/versions/:version', async (req) => {
    subjectAllowed(req, 'write', req.params.subject!);
    return r.deleteVersion(req.params.subject!, parseVersion(req.params.version!), flag(req.query.permanent));
  });

  get('/config', async (req) => {
    globalAllowed(req, 'read');
    return { compatibilityLevel: await r.getCompatibility(null) };
  });
  route('PUT', '/config', async (req) => {
    globalAllowed(req, 'alter');
    return { compatibility: await r.setCompatibility(null, req.body) };
  });
  route('DELETE', '/config', async (req) => {
    globalAllowed(req, 'alter');
    return { compatibilityLevel: await r.deleteCompatibility(null) };
  });
  get('/config/:subject', async (req) => {
    subjectAllowed(req, 'read', req.params.subject!);
    return { compatibilityLevel: await r.getCompatibility(req.params.subject!, flag(req.query.defaultToGlobal)) };
  });
  route('PUT', '/config/:subject', async (req) => {
    subjectAllowed(req, 'alter', req.params.subject!);
    return { compatibility: await r.setCompatibility(req.params.subject!, req.body) };
  });
  route('DELETE', '/config/:subject', async (req) => {
    subjectAllowed(req, 'alter', req.params.subject!);
    return { compatibilityLevel: await r.deleteCompatibility(req.params.subject!) };
  });

  get('/mode', async (req) => {
    globalAllowed(req, 'read');
    return { mode: await r.getMode(null) };
  });
  route('PUT', '/mode', async (req) => {
    globalAllowed(req, 'alter');
    return { mode: await r.setMode(null, req.body, flag(req.query.force)) };
  });
  get('/mode/:subject', async (req) => {
    subjectAllowed(req, 'read', req.params.subject!);
    return { mode: await r.getMode(req.params.subject!, flag(req.query.defaultToGlobal)) };
  });
  route('PUT', '/mode/:subject', async (req) => {
    subjectAllowed(req, 'alter', req.params.subject!);
    return { mode: await r.setMode(req.params.subject!, req.body, flag(req.query.force)) };
  });
  route('DELETE', '/mode/:subject', async (req) => {
    subjectAllowed(req, 'alter', req.params.subject!);
    return { mode: await r.deleteMode(req.params.subject!) };
  });

  const compatibility = async (req: Req, version: string | null): Promise<unknown> => {
    subjectAllowed(req, 'read', req.params.subject!);
    const out = await r.testCompatibility(req.params.subject!, version === null ? null : parseVersion(version), schemaInput(req.body));
    return flag(req.query.verbose) ? { is_compatible: out.compatible, messages: out.messages } : { is_compatible: out.compatible };
  };
  route('POST', '/compatibility/subjects/:subject/versions/:version', (req) => compatibility(req, req.params.version!));
  route('POST', '/compatibility/subjects/:subject/versions', (req) => compatibility(req, null));
}
