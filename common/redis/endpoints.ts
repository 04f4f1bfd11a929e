// Where Redis is: `redis.url` / `--redis` holds one URL or a comma-separated
// list of seed nodes of a Redis Cluster. Credentials, TLS and database come
// from the first entry and apply to every node; later entries may be full
// URLs or bare `host:port`.
//
//   redis://127.0.0.1:6379
//   rediss://app:secret@10.0.0.1:7000,10.0.0.2:7000,10.0.0.3:7000
//
// Whether the server is a cluster is not said here: it is read from the server
// (`INFO cluster`, `cluster_enabled:1`), see connect.ts.

export interface RedisNodeAddress {
  host: string;
  port: number;
}

export interface RedisEndpoints {
  /** Seed nodes, in the order given (at least one). */
  seeds: RedisNodeAddress[];
  username?: string;
  password?: string;
  db?: number;
  tls: boolean;
  /** A unix socket path (`/path` or `unix:///path`): single node only. */
  socketPath?: string;
}

export class RedisUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedisUrlError';
  }
}

/** One entry of the list; a bare host:port takes `scheme` (the first entry's, so `rediss://a:1,b:2` is TLS throughout). */
function parseOne(item: string, first: boolean, scheme = 'redis:'): { addr: RedisNodeAddress; url?: URL } {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(item) ? item : `${scheme}//${item}`;
  let u: URL;
  try {
    u = new URL(withScheme);
  } catch {
    throw new RedisUrlError(`not a Redis URL or host:port: '${item.replace(/\/\/[^@]*@/, '//***@')}'`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw new RedisUrlError(`unsupported scheme '${u.protocol}' (use redis:// or rediss://)`);
  if (!first && (u.username || u.password)) throw new RedisUrlError('credentials go in the first URL of the list only');
  return { addr: { host: (u.hostname || '127.0.0.1').replace(/^\[(.*)\]$/, '$1'), port: u.port ? Number(u.port) : 6379 }, url: u };
}

export function parseRedisEndpoints(spec: string): RedisEndpoints {
  const text = spec.trim();
  if (text.startsWith('/') || text.startsWith('unix://')) return { seeds: [{ host: '', port: 0 }], tls: false, socketPath: text.replace(/^unix:\/\//, '') };
  const items = text.split(',').map((s) => s.trim()).filter(Boolean);
  if (items.length === 0) throw new RedisUrlError('empty redis.url');
  const head = parseOne(items[0]!, true);
  const u = head.url!;
  const dbText = u.pathname && u.pathname !== '/' ? u.pathname.slice(1) : '';
  const db = dbText ? Number(dbText) : undefined;
  if (db !== undefined && !(Number.isInteger(db) && db >= 0)) throw new RedisUrlError(`database '${dbText}' is not a number`);
  const tls = u.protocol === 'rediss:';
  const seeds = [head.addr];
  for (const item of items.slice(1)) {
    const p = parseOne(item, false, u.protocol);
    if (p.url && (p.url.protocol === 'rediss:') !== tls) throw new RedisUrlError('all seed URLs must use the same scheme');
    seeds.push(p.addr);
  }
  return {
    seeds,
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db,
    tls,
  };
}

/** host:port as ioredis names cluster nodes (IPv6 hosts unbracketed, like its slot table). */
export const nodeKey = (a: RedisNodeAddress): string => `${a.host}:${a.port}`;
