// A live broker and archiver on redis-server, driven with kcat: every metric
// name the Grafana dashboard (deploy/grafana/runnel-overview.json) and the
// alert rules (deploy/compose/prometheus-rules.yml) query is in their /metrics output, and the values that must move do: records in for
// the topic, Produce requests, the lag of a group that committed behind the
// end, what the archiver committed. Both endpoints are protected (bearer token
// on the broker, basic auth on the archiver) and both processes log one JSON
// format.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runCommand, spawnManaged, waitFor, waitForPort, REPO_ROOT, type ManagedProcess } from '../../helpers/procs.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { brokerExit, startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { WireClient } from '../../helpers/wire.js';
import { DescribeConfigs } from '../../../broker/src/protocol/messages/describe-configs.js';

const DASHBOARD = path.join(REPO_ROOT, 'deploy', 'grafana', 'runnel-overview.json');
const RULES = path.join(REPO_ROOT, 'deploy', 'compose', 'prometheus-rules.yml');
const TOKEN = 'obs-token-5521';
const BASIC = `Basic ${Buffer.from('prom:arch-pw-77').toString('base64')}`;
const TOPIC = 'obs';
const GROUP = 'obs-group';

let redis: RedisServer;
let broker: RunnelBroker;
let archiver: ManagedProcess;
let brokerHttp: number;
let archiverHttp: number;
const lake = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-obs-lake-'));

const scrape = async (port: number, auth: string): Promise<string> => {
  const r = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: auth }, signal: AbortSignal.timeout(10_000) });
  expect(r.status).toBe(200);
  return r.text();
};

/** The value of one sample (`name{labels}` exactly as exposed, labels in their exposition order), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const kcat = async (args: string[], input?: string) => {
  const r = await runCommand('kcat', ['-b', broker.bootstrap, ...args], { input, timeoutMs: 30_000 });
  expect(r.code, r.stderr).toBe(0);
  return r;
};
const lines = (from: number, n: number) => Array.from({ length: n }, (_, i) => `k${from + i}:v${from + i}`).join('\n') + '\n';

beforeAll(async () => {
  redis = await startRedis();
  brokerHttp = await freePort();
  broker = await startRunnel({ redisUrl: redis.url, args: [
    '--set', `http.port=${brokerHttp}`, '--set', `http.auth.bearer.token=${TOKEN}`, '--set', 'group.initial.rebalance.delay.ms=0',
  ] });
  archiverHttp = await freePort();
  archiver = spawnManaged('runnel-archiver-obs', process.execPath, [path.join(REPO_ROOT, 'dist', 'cli', 'runnel.js'), 'archiver', '--redis', redis.url, '--lake', `file://${lake}`], {
    env: {
      ...process.env, RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '300', RUNNEL_ARCHIVER_HTTP_PORT: String(archiverHttp), RUNNEL_ARCHIVER_TOPIC_REFRESH_MS: '200',
      RUNNEL_ARCHIVER_HTTP_AUTH_BASIC_USER: 'prom', RUNNEL_ARCHIVER_HTTP_AUTH_BASIC_PASSWORD: 'arch-pw-77',
    },
  });
  await waitForPort(archiverHttp, { proc: archiver, timeoutMs: 20_000 });
}, 60_000);

afterAll(async () => {
  await archiver?.stop(10_000).catch(() => undefined);
  await broker?.stop().catch(() => undefined);
  await redis?.stop().catch(() => undefined);
  fs.rmSync(lake, { recursive: true, force: true });
});

describe('metrics of a live broker and archiver', () => {
  it('expose every metric the dashboard queries; traffic, requests, group lag and archiving move', async () => {
    // 10 records, consumed and committed by a group (kcat's balanced consumer commits at close), then 4 more: lag 4
    await kcat(['-P', '-t', TOPIC, '-K:'], lines(0, 10));
    const consumed = await kcat(['-G', GROUP, '-o', 'beginning', '-e', '-q', '-X', 'enable.auto.commit=true', '-X', 'auto.commit.interval.ms=100', TOPIC]);
    expect(consumed.stdout.trim().split('\n')).toHaveLength(10);
    await kcat(['-P', '-t', TOPIC, '-K:'], lines(10, 4));

    const b = await scrape(brokerHttp, `Bearer ${TOKEN}`);
    expect(sample(b, `runnel_topic_records_in_total{topic="${TOPIC}"}`)).toBe(14);
    expect(sample(b, `runnel_topic_bytes_in_total{topic="${TOPIC}"}`)).toBeGreaterThan(14 * 4);
    expect(sample(b, `runnel_topic_records_out_total{topic="${TOPIC}"}`)).toBeGreaterThanOrEqual(10);
    expect(sample(b, 'runnel_requests_total{api="Produce",error="NONE"}')).toBeGreaterThanOrEqual(2);
    expect(sample(b, 'runnel_request_duration_seconds_count{api="Produce"}')).toBeGreaterThanOrEqual(2);
    expect(sample(b, 'runnel_requests_total{api="OffsetCommit",error="NONE"}')).toBeGreaterThanOrEqual(1);
    expect(sample(b, `runnel_consumer_group_lag{group="${GROUP}",topic="${TOPIC}",partition="0"}`)).toBe(4);
    expect(sample(b, `runnel_partition_high_watermark{topic="${TOPIC}",partition="0"}`)).toBe(14);
    expect(sample(b, 'runnel_redis_rtt_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(b).toMatch(/^# TYPE runnel_requests_total counter$/m);
    expect(b).toMatch(/^# TYPE runnel_consumer_group_lag gauge$/m);

    // the archiver commits all 14 to the lake
    let a = '';
    await waitFor('archived', async () => {
      a = await scrape(archiverHttp, BASIC);
      return sample(a, `runnel_archiver_lag_records{topic="${TOPIC}",partition="0"}`) === 0 && sample(a, 'runnel_archiver_records_archived_total') === 14;
    }, { proc: archiver, timeoutMs: 15_000, intervalMs: 200 });
    expect(sample(a, 'runnel_archiver_commits_total')).toBeGreaterThanOrEqual(1);
    expect(sample(a, 'runnel_archiver_commit_duration_seconds_count{outcome="committed"}')).toBe(sample(a, 'runnel_archiver_commits_total'));
    expect(sample(a, `runnel_archiver_archived_offset{topic="${TOPIC}",partition="0"}`)).toBe(13);
    expect(a).toMatch(/^# TYPE runnel_archiver_records_archived_total counter$/m);

    // every name in the dashboard's queries (panels and variables) is exposed by one of the two processes
    const dashboard = fs.readFileSync(DASHBOARD, 'utf8');
    const names = [...new Set([...dashboard.matchAll(/\b((?:runnel|process|nodejs)_[a-z0-9_]+)/g)].map((m) => m[1]!))];
    expect(names.length).toBeGreaterThan(15);
    const exposed = (n: string) => new RegExp(`^${n}[{ ]`, 'm');
    const missing = names.filter((n) => !exposed(n).test(b) && !exposed(n).test(a));
    expect(missing, 'dashboard metrics absent from /metrics').toEqual([]);
    // so is every metric the compose alert rules query (the chart's PrometheusRule has the same, test/deploy/deploy.test.ts)
    const rules = fs.readFileSync(RULES, 'utf8').split('\n').filter((l) => /^\s+expr:/.test(l)).join('\n');
    const ruleNames = [...new Set([...rules.matchAll(/\b(runnel_[a-z0-9_]+)/g)].map((m) => m[1]!))];
    expect(ruleNames).toEqual(expect.arrayContaining(['runnel_redis_memory_used_bytes', 'runnel_redis_memory_max_bytes', 'runnel_archiver_lag_seconds']));
    expect(ruleNames.filter((n) => !exposed(n).test(b) && !exposed(n).test(a)), 'alert-rule metrics absent from /metrics').toEqual([]);
  });

  it('protects /metrics (401 without the credential), leaves the probes /health and /ready open; DescribeConfigs hides the token', async () => {
    const c = await WireClient.connect(broker.port);
    try {
      const r = await c.request(DescribeConfigs, 4, { resources: [{ resourceType: 4, resourceName: '1', configurationKeys: ['http.auth.bearer.token', 'http.auth.basic.password', 'http.ssl.key.password', 'http.host'] }], includeSynonyms: false, includeDocumentation: false });
      const byName = Object.fromEntries((r.results[0].configs as Array<{ name: string; value: string | null; isSensitive: boolean }>).map((e) => [e.name, [e.value, e.isSensitive]]));
      expect(byName).toEqual({ 'http.auth.bearer.token': [null, true], 'http.auth.basic.password': [null, true], 'http.ssl.key.password': [null, true], 'http.host': ['127.0.0.1', false] });
      // this client's connection is one of the listener's open connections
      expect(sample(await scrape(brokerHttp, `Bearer ${TOKEN}`), 'runnel_connections{listener="PLAINTEXT"}')).toBeGreaterThanOrEqual(1);
    } finally {
      c.close();
    }
    for (const [port, right] of [[brokerHttp, `Bearer ${TOKEN}`], [archiverHttp, BASIC]] as const) {
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(401);
      expect((await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
      expect((await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: right } })).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/ready`)).status).toBe(200);
    }
  });

  it('both processes log JSON lines: level label, ISO time, component, msg; no credential in them', async () => {
    for (const [proc, component] of [[broker.proc(), 'broker'], [archiver, 'archiver']] as const) {
      // the harness writes the command line on a `#` line first; the process's own output is the rest
      const own = fs.readFileSync(proc.logFile, 'utf8').split('\n').filter((l) => l && !l.startsWith('# '));
      const text = own.join('\n');
      expect(own.every((l) => l.startsWith('{')), 'every line of the process is JSON').toBe(true);
      const events = own.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(events.length).toBeGreaterThan(0);
      for (const e of events) {
        expect(['debug', 'info', 'warn', 'error']).toContain(e.level);
        expect(e.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        expect(e.component).toBe(component);
        expect(typeof e.msg).toBe('string');
      }
      // the endpoint is announced with its protection, never its secret
      expect(events.find((e) => e.msg === 'http endpoint listening')).toMatchObject({
        host: '127.0.0.1', port: component === 'broker' ? brokerHttp : archiverHttp, tls: false, auth: component === 'broker' ? 'bearer' : 'basic',
      });
      if (component === 'archiver') {
        // partition adoption is one summary line per tick, not one line per partition
        expect(events.filter((e) => e.msg === 'partition adopted')).toEqual([]);
        expect(events.find((e) => e.msg === 'partitions changed')).toMatchObject({ level: 'info', adopted: 1, released: 0, adoptedPartitions: `${TOPIC}/0` });
      }
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain('arch-pw-77');
    }
  });

  it('a half-configured endpoint stops the broker at start-up with RN3001 (never serves unprotected); so does a taken port', async () => {
    const { exit, log } = await brokerExit(redis.url, [`http.port=${await freePort()}`, 'http.auth.basic.user=prom']);
    expect(exit.code).toBe(1);
    expect(log).toMatch(/RN3001.*http\.auth\.basic\.user is set but http\.auth\.basic\.password is empty/);
    // an HTTP port already taken (the running broker's) stops the second broker too, saying so
    const taken = await brokerExit(redis.url, [`http.port=${brokerHttp}`, 'node.id=2']);
    expect(taken.exit.code).toBe(1);
    expect(taken.log).toMatch(/RN3004 port already in use: 127\.0\.0\.1:\d+ .*http\.port/);
  });
});
