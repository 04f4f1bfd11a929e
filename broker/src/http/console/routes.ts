// The web console's GET routes on the HTTP endpoint (read-only: nothing here
// writes). Mounted by the broker when http.console.enable is true; the
// endpoint's authentication and TLS (common/http) apply to every route. Pages
// carry a Content-Security-Policy that allows no script and only the
// console's own stylesheet, a second guard behind the escaping in html.ts.
// Each request sees what the broker's authorizer lets its principal see
// (access.ts, visible.ts): records need Read on the topic, 403 otherwise.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ALLOW_ALL, type ConsoleAccess } from './access.js';
import type { ConsoleData } from './data.js';
import { clusterPage } from './pages/cluster.js';
import { groupPage, groupsPage } from './pages/groups.js';
import { chooserPage, errorPage, messagesPage } from './pages/messages.js';
import { topicsPage } from './pages/topics.js';
import { BadQuery, parseBrowseQuery } from './query.js';
import { CONSOLE_CSS } from './style.js';
import { visibleCluster, visibleGroups, visibleTopics } from './visible.js';

const CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

type Query = Record<string, string | string[] | undefined>;

function send(reply: FastifyReply, body: string, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8')
    .header('content-security-policy', CSP).header('x-content-type-options', 'nosniff').header('cache-control', 'no-store')
    .send(body);
}

/** What one request may see; without an authorizer, everything. */
export type AccessOf = (req: FastifyRequest) => ConsoleAccess;

/** The routes the HTTP endpoint mounts: the console when http.console.enable is true, else none. */
export function consoleRoutes(config: { httpConsoleEnable: boolean }, data: () => ConsoleData, access: AccessOf = () => ALLOW_ALL): ((app: FastifyInstance) => void) | undefined {
  return config.httpConsoleEnable ? (app) => registerConsole(app, data(), access) : undefined;
}

export function registerConsole(app: FastifyInstance, data: ConsoleData, access: AccessOf = () => ALLOW_ALL): void {
  app.get('/', async (_req, reply) => reply.redirect('/console'));
  app.get('/console/style.css', async (_req, reply) => reply.type('text/css; charset=utf-8').header('cache-control', 'max-age=300').send(CONSOLE_CSS));
  app.get('/console', async (req, reply) => send(reply, clusterPage(visibleCluster(await data.cluster(), access(req)))));
  app.get('/console/topics', async (req, reply) => send(reply, topicsPage(visibleTopics(await data.topics(), access(req)), (req.query as Query).internal === '1')));
  app.get('/console/groups', async (req, reply) => send(reply, groupsPage(visibleGroups(await data.groups(), access(req)))));
  app.get('/console/group', async (req, reply) => {
    const id = (req.query as Query).id;
    if (typeof id !== 'string') return send(reply, errorPage(400, 'id must name one consumer group'), 400);
    // Authorized before looked up: a refused principal does not learn whether the group exists (as in Kafka).
    if (!access(req).describeGroup(id)) return send(reply, errorPage(403, `GROUP_AUTHORIZATION_FAILED (30): not authorized to describe consumer group ${id}`), 403);
    const g = visibleGroups(await data.groups(), access(req)).find((x) => x.groupId === id);
    return g ? send(reply, groupPage(g)) : send(reply, errorPage(404, `no consumer group ${id}`), 404);
  });
  app.get('/console/messages', async (req, reply) => {
    let parsed: ReturnType<typeof parseBrowseQuery>;
    try {
      parsed = parseBrowseQuery(req.query as Query);
    } catch (e) {
      if (e instanceof BadQuery) return send(reply, errorPage(400, e.message), 400);
      throw e;
    }
    const { n, browse } = parsed;
    if (!browse) return send(reply, chooserPage(n));
    // Read on the topic, checked before its existence, as Fetch does.
    if (!access(req).readTopic(browse.topic)) return send(reply, errorPage(403, `TOPIC_AUTHORIZATION_FAILED (29): not authorized to read topic ${browse.topic}`), 403);
    // A stored batch that does not decode (RN4003 territory) is named, not a bare 500.
    const d = await data.records(browse.topic, browse.partition, n).catch((e: unknown) => e as Error);
    if (d instanceof Error) return send(reply, errorPage(500, `${browse.topic}/${browse.partition}: ${d.message}`), 500);
    if (!d) return send(reply, errorPage(404, `no partition ${browse.partition} of topic ${browse.topic}`), 404);
    return send(reply, messagesPage(browse.topic, n, d));
  });
}
