// The Redis Cluster test harness itself (test/helpers/redis-cluster.ts), for
// the flavor of RUNNEL_TEST_BACKEND (redis, valkey, redis-cluster or
// valkey-cluster; default redis): a 3+3 cluster comes up covering every slot,
// a SIGKILLed primary's replica is promoted and the old primary rejoins as a
// replica, reshard moves slots (and their keys), addPrimary + rebalance gives
// a new node slots, and startRedis({ cluster: true }) stands in for a
// RedisServer (kill all / restart all keeps AOF data).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_SLOTS, respCommand, startRedisCluster, type ClusterNode, type RedisCluster } from '../../helpers/redis-cluster.js';
import { flavorFromEnv, startRedis, type RedisServer } from '../../helpers/redis.js';
import { sleep } from '../../helpers/procs.js';

const FLAVOR = flavorFromEnv();

/** Value of a raw RESP bulk reply ('$3\r\nbar\r\n' -> 'bar'; '$-1' -> null). */
function bulk(raw: string): string | null {
  if (!raw.startsWith('$')) throw new Error(`not a bulk reply: ${JSON.stringify(raw)}`);
  if (raw.startsWith('$-1')) return null;
  return raw.slice(raw.indexOf('\r\n') + 2, -2);
}

const ports = (ns: ClusterNode[]): number[] => ns.map((n) => n.port).sort((a, b) => a - b);

function timed(what: string, t0: number): void {
  console.log(`[redis-cluster ${FLAVOR}] ${what}: ${Date.now() - t0} ms`);
}

describe(`redis cluster harness (${FLAVOR})`, () => {
  let c: RedisCluster;

  beforeAll(async () => {
    const t0 = Date.now();
    c = await startRedisCluster({ flavor: FLAVOR });
    timed('startRedisCluster (3 primaries + 3 replicas, healthy)', t0);
  });
  afterAll(async () => {
    await c?.stop();
  });

  it('comes up with 3 primaries and 3 replicas covering all 16384 slots', async () => {
    expect(c.flavor).toBe(FLAVOR);
    expect(c.nodes).toHaveLength(6);
    const primaries = await c.primaries();
    const replicas = await c.replicas();
    expect(primaries).toHaveLength(3);
    expect(replicas).toHaveLength(3);
    expect(c.seeds.split(',').sort()).toEqual(primaries.map((n) => n.url).sort());
    expect(c.url).toBe(c.seeds);
    expect(c.seeds).toMatch(/^redis:\/\/127\.0\.0\.1:\d+(,redis:\/\/127\.0\.0\.1:\d+){2}$/);

    // Every primary serves slots, together exactly all of them; every replica follows a distinct primary.
    const counts = await Promise.all(primaries.map((p) => c.slotsOf(p)));
    expect(counts.every((s) => s.length > 5000)).toBe(true);
    expect(new Set(counts.flat()).size).toBe(CLUSTER_SLOTS);
    expect(counts.flat()).toHaveLength(CLUSTER_SLOTS);
    const masters = await Promise.all(replicas.map((r) => c.primaryOf(r)));
    expect(ports(masters.map((m) => m!))).toEqual(ports(primaries));
    for (const slot of [0, 5460, 5461, 10922, 10923, CLUSTER_SLOTS - 1]) {
      expect(primaries).toContain(await c.slotOwner(slot));
    }

    for (const n of c.nodes) {
      const info = bulk(await n.command('CLUSTER INFO'))!;
      expect(info).toMatch(/cluster_state:ok/);
      expect(info).toMatch(/cluster_slots_assigned:16384/);
      expect(info).toMatch(/cluster_known_nodes:6/);
      expect(await c.nodeId(n)).toMatch(/^[0-9a-f]{40}$/);
    }
    expect(new Set(await Promise.all(c.nodes.map((n) => c.nodeId(n)))).size).toBe(6);

    // keySlot agrees with the server (hash tags included), and node.command reads whole arrays.
    for (const key of ['foo', 'rn:p:{orders/0}:log', 'rn:p:{orders/0}:meta', '{}x', 'a{b}c']) {
      expect(await c.primaries().then((p) => p[0]!.command(['CLUSTER', 'KEYSLOT', key]))).toBe(`:${c.keySlot(key)}\r\n`);
    }
    expect(c.keySlot('foo')).toBe(12182);
    expect(c.keySlot('rn:p:{orders/0}:log')).toBe(c.keySlot('{orders/0}'));
    const slotsReply = await primaries[0]!.command('CLUSTER SLOTS');
    expect(slotsReply.startsWith('*3\r\n')).toBe(true);
    expect(slotsReply.endsWith('\r\n')).toBe(true);

    // clusterCommand follows MOVED: keys on every primary, from whichever node it starts at.
    const keys = ['k-a', 'k-b', 'k-c', 'k-d', 'k-e', 'k-f', 'k-g', 'k-h'];
    expect(new Set(await Promise.all(keys.map(async (k) => (await c.slotOwner(c.keySlot(k))).port))).size).toBeGreaterThan(1);
    for (const k of keys) expect(await c.clusterCommand(`SET ${k} v-${k}`)).toBe('+OK\r\n');
    for (const k of keys) expect(bulk(await c.clusterCommand(['GET', k]))).toBe(`v-${k}`);
    const owner = await c.slotOwner(c.keySlot('k-a'));
    const other = primaries.find((p) => p !== owner)!;
    expect(await other.command('GET k-a')).toMatch(/^-MOVED \d+ 127\.0\.0\.1:\d+\r\n$/);
    // The CLI with -c follows MOVED too.
    const viaCli = await c.cli(['GET', 'k-a'], { node: other, follow: true });
    expect(viaCli.code).toBe(0);
    expect(viaCli.stdout.trim()).toBe('v-k-a');
  });

  it('SIGKILL of a primary: its replica is promoted; the restarted node rejoins as a replica', async () => {
    const key = 'failover-key';
    expect(await c.clusterCommand(`SET ${key} before-kill`)).toBe('+OK\r\n');
    const victim = await c.slotOwner(c.keySlot(key));
    // Make sure the write reached the replica before the crash.
    expect(await victim.command('WAIT 1 5000')).toBe(':1\r\n');
    const victimSlots = await c.slotsOf(victim);
    const replicasBefore = await c.replicas();
    const itsReplica = (await Promise.all(replicasBefore.map(async (r) => ((await c.primaryOf(r)) === victim ? r : null)))).find((r) => r)!;
    expect(itsReplica).toBeTruthy();

    const t0 = Date.now();
    await victim.kill();
    expect(victim.running()).toBe(false);
    const promoted = await c.waitPromoted(victim, 20_000);
    timed('SIGKILL primary -> replica promoted, cluster_state ok', t0);
    expect(promoted).toBe(itsReplica);
    expect(await c.slotOwner(c.keySlot(key))).toBe(promoted);
    expect(await c.slotsOf(promoted)).toEqual(victimSlots);
    expect(ports(await c.primaries())).toContain(promoted.port);
    expect(ports(await c.primaries())).not.toContain(victim.port);
    expect(bulk(await c.clusterCommand(`GET ${key}`))).toBe('before-kill');
    expect(await c.clusterCommand(`SET ${key} after-failover`)).toBe('+OK\r\n');

    const t1 = Date.now();
    await victim.restart();
    await c.waitHealthy(20_000);
    timed('restart killed primary -> rejoined as replica, healthy', t1);
    expect(victim.running()).toBe(true);
    expect(ports(await c.replicas())).toContain(victim.port);
    expect(await c.primaryOf(victim)).toBe(promoted);
    expect(bulk(await victim.command('INFO replication'))).toMatch(new RegExp(`master_port:${promoted.port}\\r`));
    expect(await c.primaries()).toHaveLength(3);
    expect(await c.replicas()).toHaveLength(3);
    // The rejoined replica got the write made after the failover.
    expect(await promoted.command('WAIT 1 5000')).toBe(':1\r\n');
    expect(bulk(await respCommand(victim.port, ['GET', key], { prefix: ['READONLY'] }))).toBe('after-failover');
  });

  it('reshard moves N slots (and their keys) between primaries', async () => {
    const serving = [];
    for (const p of await c.primaries()) if ((await c.slotsOf(p)).length > 0) serving.push(p);
    const [from, to] = serving;
    const fromBefore = await c.slotsOf(from!);
    const toBefore = await c.slotsOf(to!);
    const moved = fromBefore.slice(0, 100);
    // A key in the first slot that will move.
    const slot = moved[0]!;
    let key = '';
    expect(slot, 'the source primary serves slots').toBeTypeOf('number');
    for (let i = 0; i < 10_000_000; i++) {
      if (c.keySlot(`resh-${i}`) === slot) {
        key = `resh-${i}`;
        break;
      }
    }
    expect(await c.clusterCommand(`SET ${key} travels`)).toBe('+OK\r\n');
    expect(await c.slotOwner(slot)).toBe(from);

    const t0 = Date.now();
    await c.reshard({ from: from!, to: to!, slots: 100 });
    timed('reshard 100 slots', t0);
    const fromAfter = await c.slotsOf(from!);
    const toAfter = await c.slotsOf(to!);
    expect(fromAfter).toHaveLength(fromBefore.length - 100);
    expect(toAfter).toHaveLength(toBefore.length + 100);
    expect(await c.slotOwner(slot)).toBe(to);
    // redis-cli takes the source's lowest slots.
    for (const s of moved) expect(toAfter).toContain(s);
    expect(bulk(await c.clusterCommand(`GET ${key}`))).toBe('travels');
    expect(await from!.command(`GET ${key}`)).toMatch(/^-MOVED /);
    expect(bulk(await to!.command(`GET ${key}`))).toBe('travels');
  });

  it('addPrimary + rebalance --cluster-use-empty-masters gives the new node slots', async () => {
    const t0 = Date.now();
    const fresh = await c.addPrimary();
    timed('addPrimary', t0);
    expect(c.nodes).toContain(fresh);
    expect(ports(await c.primaries())).toContain(fresh.port);
    expect(await c.slotsOf(fresh)).toHaveLength(0);
    for (const n of c.nodes.filter((x) => x.running())) {
      expect(bulk(await n.command('CLUSTER NODES'))).toContain(await c.nodeId(fresh));
    }

    const t1 = Date.now();
    await c.rebalance({ useEmptyMasters: true });
    timed('rebalance onto the empty primary', t1);
    const got = await c.slotsOf(fresh);
    expect(got.length).toBeGreaterThan(3000);
    expect(await c.slotOwner(got[0]!)).toBe(fresh);
    const primaries = await c.primaries();
    expect(primaries).toHaveLength(4);
    const all = (await Promise.all(primaries.map((p) => c.slotsOf(p)))).flat();
    expect(new Set(all).size).toBe(CLUSTER_SLOTS);
    // Keys written before are still readable wherever they went.
    expect(bulk(await c.clusterCommand('GET k-a'))).toBe('v-k-a');
    await c.waitHealthy(5000);
  });
});

describe(`startRedis({ cluster: true }) as a RedisServer (${FLAVOR})`, () => {
  let r: RedisServer;
  afterAll(async () => {
    await r?.stop();
  });

  it('url = seeds, command() routed, kill() + restart() keeps AOF data', async () => {
    const t0 = Date.now();
    r = await startRedis({ cluster: true });
    timed('startRedis({ cluster: true })', t0);
    const cl = r.cluster!;
    expect(cl).toBeDefined();
    expect(r.flavor).toBe(FLAVOR);
    expect(r.url).toBe(cl.seeds);
    expect(r.url.split(',')[0]).toBe(`redis://${r.host}:${r.port}`);
    expect(r.dir).toBe(cl.nodes.find((n) => n.port === r.port)!.dir);
    expect(r.proc().running()).toBe(true);
    expect(await r.command('PING')).toBe('+PONG\r\n');
    const keys = Array.from({ length: 20 }, (_, i) => `rs-${i}`);
    for (const k of keys) expect(await r.command(`SET ${k} ${k}-v`)).toBe('+OK\r\n');
    expect(bulk(await r.command(`HGET rn:p:{t/0}:meta none`))).toBeNull();
    await sleep(1500); // appendfsync everysec

    await r.kill();
    expect(cl.nodes.every((n) => !n.running())).toBe(true);
    const t1 = Date.now();
    await r.restart();
    timed('kill all + restart all -> healthy', t1);
    for (const k of keys) expect(bulk(await r.command(`GET ${k}`))).toBe(`${k}-v`);
    expect(await cl.primaries()).toHaveLength(3);
  });
});
