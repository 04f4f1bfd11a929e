// The console's routes on the shared HTTP endpoint, with fixed page data:
// they sit behind the endpoint's authentication, answer only GET, carry a
// CSP that allows no script, escape names from the store, answer 400 on a bad
// query; http.console.enable=false mounts nothing.
import { afterAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { startHttp, type RunningHttp } from '../../../../common/http/http-server.js';
import type { HttpSettings } from '../../../../common/http/http-settings.js';
import { loadBrokerConfig } from '../../../../broker/src/config/config.js';
import type { ConsoleData } from '../../../../broker/src/http/console/data.js';
import { consoleRoutes } from '../../../../broker/src/http/console/routes.js';
import type { GroupLag, PartitionStatus } from '../../../../broker/src/redis/status-report.js';

const base: HttpSettings = {
  host: '127.0.0.1', port: 0, bearerToken: '', basicUser: '', basicPassword: '',
  keystoreLocation: '', keyPassword: '', truststoreLocation: '', clientAuth: 'none',
};

const EVIL = '<img src=x onerror=alert(1)>';
const partition: PartitionStatus = {
  topic: 't', partition: 0, leader: 1, leaderInstance: '1:abc', leaderEpoch: 3, logEndOffset: 9, logStartOffset: 2, archivedOffset: null, lakeLagRecords: null,
};
const group: GroupLag = {
  groupId: EVIL, state: 'Empty', protocolType: '', protocolName: '', generation: 0, members: [],
  partitions: [{ topic: 't', partition: 0, committedOffset: 4, logEndOffset: 9, lag: 5, clientId: null }], totalLag: 5,
};
const requested: Array<[string, number, number]> = [];
const data: ConsoleData = {
  cluster: async () => ({ time: 0, brokers: [{ nodeId: 1, host: EVIL, port: 9092, rack: null, instance: '1:abc', expiresAt: 1, live: true }], topics: [{ name: 't', partitions: [partition] }] }),
  topics: async () => [{ status: { name: 't', partitions: [partition] }, bytes: [2048], lake: null }],
  groups: async () => [group],
  records: async (topic, p, n) => {
    requested.push([topic, p, n]);
    if (topic === 'bad') throw new Error('record batch CRC-32C mismatch');
    return topic === 't' && p === 0 ? { partition, records: [{ offset: 8, timestampMs: 0, timestampType: 0, key: Buffer.from(EVIL), value: Buffer.from('{"x":1}'), headers: [{ key: EVIL, value: null }] }] } : null;
  },
};

const running: RunningHttp[] = [];
afterAll(async () => { for (const h of running) await h.close(); });

async function serve(s: Partial<HttpSettings>, enable = true): Promise<string> {
  const config = loadBrokerConfig(['--set', `http.console.enable=${enable}`], {});
  const h = await startHttp({ ...base, ...s }, { ready: async () => true, registry: new Registry(), routes: consoleRoutes(config, () => data) });
  running.push(h);
  return `http://127.0.0.1:${h.port}`;
}

describe('console routes', () => {
  it('is on by default and mounts nothing with http.console.enable=false', async () => {
    expect(loadBrokerConfig([], {}).httpConsoleEnable).toBe(true);
    const off = await serve({}, false);
    expect((await fetch(`${off}/console`)).status).toBe(404);
    expect((await fetch(`${off}/`, { redirect: 'manual' })).status).toBe(404);
    expect((await fetch(`${off}/health`)).status).toBe(200);
  });

  it('every page needs the endpoint credential; with it, pages are HTML with a no-script CSP', async () => {
    const url = await serve({ bearerToken: 'sekret' });
    const auth = { authorization: 'Bearer sekret' };
    for (const path of ['/', '/console', '/console/topics', '/console/groups', '/console/messages', '/console/style.css']) {
      const r = await fetch(`${url}${path}`, { redirect: 'manual' });
      expect(r.status, path).toBe(401);
      expect(r.headers.get('www-authenticate'), path).toMatch(/^Bearer/);
    }
    const root = await fetch(`${url}/`, { headers: auth, redirect: 'manual' });
    expect([root.status, root.headers.get('location')]).toEqual([302, '/console']);
    const page = await fetch(`${url}/console`, { headers: auth });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'; style-src 'self'/);
    const body = await page.text();
    expect(body).not.toContain(EVIL);
    expect(body).toContain('&lt;img src=x onerror=alert(1)&gt;:9092');
    const css = await fetch(`${url}/console/style.css`, { headers: auth });
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    for (const method of ['POST', 'PUT', 'DELETE']) expect((await fetch(`${url}/console/topics`, { method, headers: auth })).status, method).toBe(404);
  });

  it('groups, group and messages pages escape store data; bad queries are 400, unknown ones 404', async () => {
    const url = await serve({});
    for (const path of ['/console/groups', `/console/group?id=${encodeURIComponent(EVIL)}`, '/console/messages?topic=t&partition=0&n=5']) {
      const r = await fetch(`${url}${path}`);
      expect(r.status, path).toBe(200);
      const body = await r.text();
      expect(body, path).not.toContain(EVIL);
      expect(body, path).toContain('&lt;img src=x onerror=alert(1)&gt;');
    }
    expect(requested).toEqual([['t', 0, 5]]);
    const bad = await fetch(`${url}/console/messages?topic=t&n=501`);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('n must be an integer from 1 to 500 (got &quot;501&quot;)');
    expect((await fetch(`${url}/console/messages?topic=t&partition=1`)).status).toBe(404);
    expect((await fetch(`${url}/console/group`)).status).toBe(400);
    expect((await fetch(`${url}/console/group?id=other`)).status).toBe(404);
    expect(requested).toEqual([['t', 0, 5], ['t', 1, 20]]);
    const broken = await fetch(`${url}/console/messages?topic=bad`);
    expect(broken.status).toBe(500);
    expect(await broken.text()).toContain('bad/0: record batch CRC-32C mismatch');
  });
});
