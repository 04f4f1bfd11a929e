// TCP relays between a broker and Redis for fault tests: a forwarder that
// can drop or re-point a link, and a link that holds bytes both ways (stall)
// and releases them in order.

// ------------------------------------------------------------- forwarder ---

export interface Forwarder {
  port: number;
  url: string;
  /** New connections go to this port from now on. */
  setUpstream(port: number): void;
  /** Stop delivering bytes from upstream to clients (they are discarded; no resume): clients hear nothing more, their own bytes still flow. */
  pause(): void;
  /** Destroy every open connection pair; held bytes are discarded. */
  dropAll(): void;
  close(): Promise<void>;
}

/**
 * A TCP forwarder in front of a server (e.g. redis-server): lets a test hold
 * back a replica's replication stream, or move a client to another server
 * (a failover behind one endpoint).
 */
export async function startForwarder(upstreamPort: number): Promise<Forwarder> {
  const net = await import('node:net');
  let upstream = upstreamPort;
  let paused = false;
  const pairs = new Set<{ a: import('node:net').Socket; b: import('node:net').Socket }>();
  const server = net.createServer((client) => {
    const up = net.connect({ host: '127.0.0.1', port: upstream });
    const pair = { a: client, b: up };
    pairs.add(pair);
    const kill = (): void => { client.destroy(); up.destroy(); pairs.delete(pair); };
    client.on('error', kill);
    up.on('error', kill);
    client.on('close', kill);
    up.on('close', kill);
    client.on('data', (d) => up.write(d));
    up.on('data', (d) => { if (!paused) client.write(d); else up.pause(); });
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  const port = (server.address() as import('node:net').AddressInfo).port;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    setUpstream: (p) => { upstream = p; },
    pause: () => { paused = true; },
    dropAll: () => { for (const p of [...pairs]) { p.a.destroy(); p.b.destroy(); } pairs.clear(); },
    close: async () => {
      for (const p of [...pairs]) { p.a.destroy(); p.b.destroy(); }
      pairs.clear();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
}

// -------------------------------------------------------- stallable link ---

export interface StallableLink {
  port: number;
  url: string;
  /** From now on every byte, both directions, is held in order; connections stay open (a network stall, not a cut). */
  stall(): void;
  /** Delivers everything held, in order, and forwards normally again. */
  release(): void;
  /** Bytes held so far on their way to the server (to see which commands wait in the stall). */
  heldToServer(): Buffer;
  close(): Promise<void>;
}

/**
 * A TCP relay in front of a server (e.g. redis-server) that can stall and
 * resume: while stalled the client's commands are written to its socket but
 * not executed, and replies already produced are not delivered. Released,
 * the held commands reach the server after whatever others did meanwhile.
 */
export async function startStallableLink(upstreamPort: number, host = '127.0.0.1'): Promise<StallableLink> {
  const net = await import('node:net');
  let stalled = false;
  let held: Array<{ to: import('node:net').Socket; data: Buffer; toServer: boolean }> = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = net.createServer((client) => {
    const up = net.connect({ host, port: upstreamPort });
    sockets.add(client);
    sockets.add(up);
    const forward = (from: import('node:net').Socket, to: import('node:net').Socket, toServer: boolean): void => {
      from.on('data', (d: Buffer) => {
        if (stalled) held.push({ to, data: d, toServer });
        else to.write(d);
      });
    };
    forward(client, up, true);
    forward(up, client, false);
    const kill = (): void => { client.destroy(); up.destroy(); sockets.delete(client); sockets.delete(up); };
    for (const s of [client, up]) { s.on('error', kill); s.on('close', kill); }
  });
  await new Promise<void>((res) => server.listen(0, host, () => res()));
  const port = (server.address() as import('node:net').AddressInfo).port;
  const release = (): void => {
    stalled = false;
    const out = held;
    held = [];
    for (const h of out) if (!h.to.destroyed) h.to.write(h.data);
  };
  return {
    port,
    url: `redis://${host}:${port}`,
    stall: () => { stalled = true; },
    release,
    heldToServer: () => Buffer.concat(held.filter((h) => h.toServer).map((h) => h.data)),
    close: async () => {
      release();
      for (const s of [...sockets]) s.destroy();
      sockets.clear();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
}
