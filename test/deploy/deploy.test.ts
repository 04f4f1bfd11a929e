// deploy/ beside the chart, checked with real tools: the compose file against
// the compose-spec JSON schema (check-jsonschema's vendored copy), the
// Dockerfile by hadolint, the systemd units by `systemd-analyze verify` and
// `systemd-analyze security --offline`. The settings they pass are read by
// Runnel's own config loaders. Each validator is also shown a broken file and
// must refuse it. The alert rules (compose's prometheus-rules.yml and the
// chart's PrometheusRule) are parsed and their expressions checked to name
// metrics the broker and the archiver register (promtool is not among the
// validators: a bracket and matcher check stands in for its parser).
import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../broker/src/config/config.js';
import { parseProperties } from '../../common/config/properties.js';
import { loadConfig as loadArchiverConfig } from '../../archiver/src/config.js';
import { Registry } from 'prom-client';
import { ArchiverMetrics, emptyStats, observeArchiver } from '../../archiver/src/metrics.js';
import { observeBroker } from '../../broker/src/http/broker-metrics.js';
import { RequestMetrics } from '../../broker/src/http/request-metrics.js';
import type { BrokerServices } from '../../broker/src/handlers/support/types.js';
import { ARCHIVER_NAMES, BROKER_ENV, expectKnownNames, helmTemplate, requireTools, ROOT, run, tempFiles, TOOL, yamlDocs } from './tools.js';

const read = (p: string): string => readFileSync(join(ROOT, p), 'utf8');
const pkg = JSON.parse(read('package.json')) as { bin: { runnel: string } };

beforeAll(() => requireTools());

describe('compose stack deploy/compose/compose.yaml', () => {
  const checkCompose = (file: string): ReturnType<typeof run> => run(TOOL.checkJsonschema, ['--builtin-schema', 'vendor.compose-spec', file]);
  /** Compose's ${VAR:-default} with the defaults taken (what `docker compose config` does with an empty environment). */
  const interpolate = (v: string): string => v.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');
  let compose: Record<string, any>;
  beforeAll(async () => { compose = (await yamlDocs(read('deploy/compose/compose.yaml')))[0]!; });

  it('is valid against the compose-spec schema; a misspelt key and a wrong type are refused', async () => {
    const ok = await checkCompose('deploy/compose/compose.yaml');
    expect(ok.stdout + ok.stderr).toContain('ok -- validation done');
    expect(ok.code).toBe(0);
    const text = read('deploy/compose/compose.yaml');
    const dir = tempFiles({
      'typo.yaml': text.replace('    healthcheck:\n', '    helthcheck:\n'),
      'type.yaml': text.replace('stop_grace_period: 20s', 'stop_grace_period: [20s]'),
    });
    for (const f of ['typo.yaml', 'type.yaml']) {
      const bad = await checkCompose(join(dir, f));
      expect(bad.code, f).not.toBe(0);
      expect(bad.stdout + bad.stderr, f).toContain('Schema validation errors');
    }
  });

  it('three brokers with distinct node ids and advertised addresses, each environment read by loadBrokerConfig', () => {
    const brokers = ['broker1', 'broker2', 'broker3'].map((n) => compose.services[n]);
    const cfgs = brokers.map((b) => {
      const env = Object.fromEntries(Object.entries(b.environment as Record<string, string>).map(([k, v]) => [k, interpolate(String(v))]));
      expectKnownNames(env, BROKER_ENV, 'compose broker');
      return loadBrokerConfig([], env);
    });
    expect(new Set(cfgs.map((c) => c.nodeId)).size).toBe(3);
    expect(new Set(cfgs.map((c) => `${c.advertisedHost}:${c.advertisedPort}`)).size).toBe(3);
    for (const [i, c] of cfgs.entries()) {
      expect(c.redisUrl).toBe('redis://redis:6379');
      expect(c.host).toBe('0.0.0.0');
      // the advertised port is published on the host under the same number, /metrics on 8080 inside
      expect(brokers[i].ports).toContain(`${c.advertisedPort}:${c.port}`);
      expect(c.httpPort).toBe(8080);
      // safe by default (issue 27): the console is off, the HTTP port is published on the host's loopback only,
      // HTTP credentials pass through from the environment
      expect(c.httpConsoleEnable).toBe(false);
      expect(brokers[i].ports).toContain(`127.0.0.1:${i + 1}8080:8080`);
      expect(brokers[i].ports.filter((p: string) => p.endsWith(':8080'))).toEqual([`127.0.0.1:${i + 1}8080:8080`]);
      expect(brokers[i].environment.RUNNEL_HTTP_AUTH_BASIC_PASSWORD).toBe('${RUNNEL_HTTP_AUTH_BASIC_PASSWORD:-}');
    }
  });

  it('Redis runs with AOF and noeviction; the archiver writes to the MinIO bucket that minio-init creates', () => {
    const redisArgs = (compose.services.redis.command as string[]).join(' ');
    expect(redisArgs).toContain('--appendonly yes');
    expect(redisArgs).toContain('--maxmemory-policy noeviction');
    const env = Object.fromEntries(Object.entries(compose.services.archiver.environment as Record<string, string>).map(([k, v]) => [k, interpolate(String(v))]));
    expectKnownNames(env, ARCHIVER_NAMES, 'compose archiver');
    const cfg = loadArchiverConfig(env);
    expect(cfg.lake).toMatch(/^s3:\/\/runnel-lake\//);
    expect(cfg.s3ForcePathStyle).toBe(true);
    expect(compose.services['minio-init'].entrypoint.join('\n')).toContain('mc mb --ignore-existing lake/runnel-lake');
    expect(compose.services.archiver.depends_on['minio-init'].condition).toBe('service_completed_successfully');
    // the cluster profile's nodes run with cluster mode, AOF and noeviction too
    expect(compose.services['redis-c2'].command[2]).toMatch(/--cluster-enabled yes.*--appendonly yes --maxmemory-policy noeviction/);
    expect(compose.services['redis-c2'].profiles).toEqual(['cluster']);
  });

  it('Prometheus scrapes every broker and the archiver on their HTTP ports; Grafana has it as datasource', async () => {
    const prom = (await yamlDocs(read('deploy/compose/prometheus.yml')))[0]!;
    const targets = (prom.scrape_configs as any[]).flatMap((j) => j.static_configs.flatMap((s: any) => s.targets as string[]));
    const archiverPort = compose.services.archiver.environment.RUNNEL_ARCHIVER_HTTP_PORT;
    expect(targets.sort()).toEqual(['archiver:' + archiverPort, 'broker1:8080', 'broker2:8080', 'broker3:8080']);
    const ds = (await yamlDocs(read('deploy/compose/grafana/provisioning/datasources/prometheus.yaml')))[0]!;
    expect(ds.datasources[0]).toMatchObject({ type: 'prometheus', url: 'http://prometheus:9090' });
    expect(compose.services.grafana.volumes).toContain('./grafana/provisioning:/etc/grafana/provisioning:ro');
  });
});

describe('image deploy/Dockerfile', () => {
  const text = read('deploy/Dockerfile');

  it('hadolint finds nothing; it refuses a Dockerfile that runs as root or uses an untagged image', async () => {
    const ok = await run(TOOL.hadolint, ['deploy/Dockerfile']);
    expect(ok.stdout + ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    const dir = tempFiles({ 'Dockerfile': text.replace('USER 10001:10001', 'USER root').replace('FROM ${NODE_SLIM_IMAGE}\n', 'FROM node\n') });
    const bad = await run(TOOL.hadolint, [join(dir, 'Dockerfile')]);
    expect(bad.code).not.toBe(0);
    expect(bad.stdout).toContain('DL3002'); // last USER should not be root
    expect(bad.stdout).toContain('DL3006'); // always tag the version of an image
  });

  it('runs the package bin as entrypoint, as a non-root user, with a health check on the /health route', () => {
    expect(text).toContain(`ENTRYPOINT ["node", "/app/${pkg.bin.runnel}"]`);
    const users = [...text.matchAll(/^USER (\S+)/gm)].map((m) => m[1]);
    expect(users.at(-1)).toBe('10001:10001');
    expect(text).toMatch(/^HEALTHCHECK .*\n.*\/health'\)/m);
    expect(read('common/http/http-server.ts')).toContain("app.get('/health'");
    // the build copies exactly what tsconfig compiles
    const include = (JSON.parse(read('tsconfig.json')) as { include: string[] }).include;
    for (const dir of include) expect(text).toMatch(new RegExp(`^COPY ${dir} \\./${dir}$`, 'm'));
    expect(text).toContain('npm ci --omit=dev');
  });
});

describe('systemd units deploy/systemd', () => {
  const units = ['runnel-broker.service', 'runnel-archiver.service'];

  // verify also checks that ExecStart's program exists: /opt/runnel/runnel is there only on the target, so a stub stands in.
  const withStub = (u: string): string => {
    const stub = tempFiles({ runnel: '#!/bin/sh\n' });
    chmodSync(join(stub, 'runnel'), 0o755);
    return tempFiles({ [u]: read(`deploy/systemd/${u}`).replace(/^ExecStart=\/opt\/runnel\/runnel /m, `ExecStart=${join(stub, 'runnel')} `) });
  };

  it('systemd-analyze verify accepts both units and reports a typo and a bad value', async () => {
    for (const u of units) {
      const r = await run(TOOL.systemdAnalyze, ['verify', u], { cwd: withStub(u) });
      expect(r.stdout + r.stderr, u).toBe('');
      expect(r.code, u).toBe(0);
    }
    const text = read('deploy/systemd/runnel-broker.service');
    const dir = tempFiles({ 'runnel-broker.service': text.replace('ProtectSystem=strict', 'ProtectSystem=everything').replace('PrivateTmp=yes', 'PrivateTemp=yes') });
    const bad = await run(TOOL.systemdAnalyze, ['verify', 'runnel-broker.service'], { cwd: dir });
    expect(bad.stderr).toMatch(/Failed to parse protect system value/);
    expect(bad.stderr).toMatch(/Unknown key.*PrivateTemp/);
  });

  it('systemd-analyze security rates both units at most 2.0 (OK); an unhardened unit is refused', async () => {
    for (const u of units) {
      const r = await run(TOOL.systemdAnalyze, ['security', '--offline=true', '--threshold=20', u], { cwd: join(ROOT, 'deploy/systemd') });
      expect(r.stdout, u).toMatch(/Overall exposure level for .*: [0-2]\.\d OK/);
      expect(r.code, u).toBe(0);
    }
    const plain = read('deploy/systemd/runnel-broker.service').split('\n').filter((l) => !/^(Protect|Private|Restrict|NoNew|Capability|SystemCall|Lock|Remove|Ambient|ProcSubset|UMask)/.test(l)).join('\n');
    const dir = tempFiles({ 'runnel-broker.service': plain });
    const bad = await run(TOOL.systemdAnalyze, ['security', '--offline=true', '--threshold=20', 'runnel-broker.service'], { cwd: dir });
    expect(bad.code).not.toBe(0);
  });

  it('ExecStart runs the CLI on the pinned Node 26 under systemd\'s PATH, where `node` may be the distribution\'s older one (RN3005 before)', async () => {
    // /opt/runnel is this checkout here; systemd's default PATH for system services.
    const env = { ...process.env, PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' };
    const wrapper = read('runnel');
    expect(wrapper).toContain(`exec node "$here/${pkg.bin.runnel}" "$@"`);
    for (const u of units) {
      const words = /^ExecStart=(.*)$/m.exec(read(`deploy/systemd/${u}`))![1]!.split(' ').map((w) => w.replace('/opt/runnel', ROOT));
      expect(['broker', 'archiver']).toContain(words.at(-1));
      // `apis` instead of the unit's command: it loads the handlers and with them node:zlib's zstd functions (Node 26), as `broker` and `archiver` do.
      const r = await run(words[0]!, [...words.slice(1, -1), 'apis'], { env, cwd: tempFiles({}) });
      expect(r.stderr, u).not.toMatch(/RN3005|zstd/);
      expect(r.code, u).toBe(0);
      expect(r.stdout, u).toContain('| ApiVersions | 18 |');
    }
  }, 300_000);

  it('each unit runs the package bin with its EnvironmentFile; the example files are read by the config loaders', () => {
    for (const [u, cmd, example] of [['runnel-broker.service', 'broker', 'broker.env.example'], ['runnel-archiver.service', 'archiver', 'archiver.env.example']] as const) {
      const text = read(`deploy/systemd/${u}`);
      expect(text).toMatch(new RegExp(`^ExecStart=/opt/runnel/runnel ${cmd}$`, 'm'));
      expect(text).toMatch(/^EnvironmentFile=\/etc\/runnel\/\w+\.env$/m);
      const env = parseProperties(read(`deploy/systemd/${example}`));
      if (cmd === 'broker') {
        expectKnownNames(env, BROKER_ENV, example);
        const cfg = loadBrokerConfig([], env);
        expect(cfg).toMatchObject({ nodeId: 1, advertisedHost: 'broker1.example.internal', httpPort: 8080, minInsyncReplicas: 2, logRetentionMs: 168 * 3_600_000 });
      } else {
        expectKnownNames(env, ARCHIVER_NAMES, example);
        expect(loadArchiverConfig(env)).toMatchObject({ httpPort: 8081, lake: 's3://example-lake/runnel' });
      }
    }
  });
});

/** Every metric name the broker and the archiver register (what their /metrics can expose), histogram series included. */
function registeredMetrics(): Set<string> {
  const broker = new Registry();
  const services = { cluster: { liveBrokers: () => [], leads: () => false }, log: { loadedPartitions: () => [] }, groups: {} } as unknown as BrokerServices;
  observeBroker(broker, { services, redis: { ping: async () => 'PONG' }, connections: () => [], redisMemory: async () => [] })();
  new RequestMetrics(broker);
  const archiver = new ArchiverMetrics();
  observeArchiver(archiver.registry, { lag: () => [], stats: emptyStats() });
  const names = new Set<string>();
  for (const m of [...broker.getMetricsAsArray(), ...archiver.registry.getMetricsAsArray()]) {
    names.add(m.name);
    if ((m.type as unknown as string) === 'histogram') for (const x of ['_bucket', '_sum', '_count']) names.add(m.name + x);
  }
  return names;
}

/**
 * What promtool's parser would refuse first, without promtool: brackets and
 * quotes that do not balance, a label matcher that is not `label op "value"`,
 * an operator at either end.
 */
function promqlProblems(expr: string): string[] {
  const problems: string[] = [];
  const stack: string[] = [];
  const pairs: Record<string, string> = { ')': '(', '}': '{', ']': '[' };
  let quoted = false;
  for (const ch of expr) {
    if (ch === '"') quoted = !quoted;
    else if (quoted) continue;
    else if ('({['.includes(ch)) stack.push(ch);
    else if (ch in pairs && stack.pop() !== pairs[ch]) problems.push(`unbalanced ${ch}`);
  }
  if (quoted) problems.push('unterminated string');
  if (stack.length) problems.push(`unclosed ${stack.join('')}`);
  for (const m of expr.matchAll(/\b[a-z_:][a-z0-9_:]*\{([^}]*)\}/g)) {
    for (const matcher of m[1]!.split(',').map((x) => x.trim()).filter(Boolean)) {
      if (!/^[a-zA-Z_][a-zA-Z0-9_]*\s*(=|!=|=~|!~)\s*"[^"]*"$/.test(matcher)) problems.push(`bad matcher ${matcher}`);
    }
  }
  if (/^\s*[-+*/<>=!]|[-+*/<>=!]\s*$/.test(expr)) problems.push('operator at an end');
  return problems;
}

type Rule = { alert: string; expr: string; for: string; labels: Record<string, string>; annotations: Record<string, string> };
const ALERTS = ['RunnelRedisMemoryHigh', 'RunnelBrokerDown', 'RunnelArchiverDown', 'RunnelArchiverLagHigh', 'RunnelArchiverPartitionStalled'];

describe('alert rules', () => {
  const known = registeredMetrics();
  let compose: Rule[];
  beforeAll(async () => {
    const doc = (await yamlDocs(read('deploy/compose/prometheus-rules.yml')))[0]!;
    compose = (doc.groups as Array<{ rules: Rule[] }>).flatMap((g) => g.rules);
  });
  /** Metric names in an expression: identifiers followed by a selector or standing alone, minus PromQL words. */
  const metricsOf = (expr: string): string[] => [...expr.replace(/\{[^}]*\}/g, '').replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, '').matchAll(/\b([a-z_:][a-z0-9_:]*)\b(?!\s*\()/g)]
    .map((m) => m[1]!).filter((n) => !['and', 'or', 'unless', 'bool', 'offset'].includes(n) && !/^\d/.test(n));

  it('compose: Prometheus loads prometheus-rules.yml (mounted where rule_files points); the alerts name registered metrics and the scrape jobs', async () => {
    const prom = (await yamlDocs(read('deploy/compose/prometheus.yml')))[0]!;
    const composeFile = (await yamlDocs(read('deploy/compose/compose.yaml')))[0]!;
    expect(prom.rule_files).toEqual(['/etc/prometheus/prometheus-rules.yml']);
    expect(composeFile.services.prometheus.volumes).toContain('./prometheus-rules.yml:/etc/prometheus/prometheus-rules.yml:ro');
    expect(compose.map((r) => r.alert)).toEqual(ALERTS);
    const jobs = new Set((prom.scrape_configs as Array<{ job_name: string }>).map((j) => j.job_name));
    for (const r of compose) {
      expect(promqlProblems(r.expr), r.alert).toEqual([]);
      const names = metricsOf(r.expr);
      expect(names.length, r.alert).toBeGreaterThan(0);
      expect(names.filter((n) => n !== 'up' && !known.has(n)), `${r.alert}: metrics nobody registers`).toEqual([]);
      for (const m of r.expr.matchAll(/job="([^"]+)"/g)) expect(jobs.has(m[1]!), `${r.alert}: job ${m[1]}`).toBe(true);
      expect(r.for).toMatch(/^\d+[smh]$/);
      expect(['warning', 'critical']).toContain(r.labels.severity);
      expect(r.annotations.summary).toBeTruthy();
    }
    // the memory alert divides by maxmemory only where one is set (0: no limit)
    expect(compose[0]!.expr).toContain('runnel_redis_memory_max_bytes > 0) > 0.8');
    // the checks refuse what promtool would
    expect(promqlProblems('max by (node) (runnel_redis_memory_used_bytes / 2')).toEqual(['unclosed (']);
    expect(promqlProblems('up{job=runnel-broker} == 0')).toEqual(['bad matcher job=runnel-broker']);
    expect(metricsOf('rate(runnel_nope_total{job="x"}[5m]) > 0').filter((n) => !known.has(n))).toEqual(['runnel_nope_total']);
  });

  it('helm: a PrometheusRule only with prometheusRule.enabled; the compose alerts scoped to the release\'s namespace and the ServiceMonitor\'s jobs; thresholds from values', async () => {
    expect((await yamlDocs((await helmTemplate()).stdout)).some((d) => d.kind === 'PrometheusRule')).toBe(false); // off by default
    const r = await helmTemplate(['prometheusRule.enabled=true', 'prometheusRule.labels.release=kps', 'serviceMonitor.enabled=true']);
    expect(r.code, r.stderr).toBe(0);
    const docs = await yamlDocs(r.stdout);
    const pr = docs.find((d) => d.kind === 'PrometheusRule')!;
    expect(pr.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(pr.metadata.labels.release).toBe('kps');
    const rules = (pr.spec.groups as Array<{ rules: Rule[] }>).flatMap((g) => g.rules);
    for (const x of rules) {
      expect(promqlProblems(x.expr), x.alert).toEqual([]);
      // every selector is limited to the release's namespace
      for (const sel of x.expr.matchAll(/\b([a-z_:][a-z0-9_:]*)\{([^}]*)\}/g)) expect(sel[2], x.alert).toContain('namespace="streaming"');
    }
    // the `up` jobs are Services the ServiceMonitor selects (Prometheus Operator names a job after its Service)
    const sm = docs.find((d) => d.kind === 'ServiceMonitor')!;
    const want = sm.spec.selector.matchExpressions[0];
    const scraped = new Set(docs.filter((d) => d.kind === 'Service' && d.metadata.labels[want.key] === want.values[0]).map((d) => d.metadata.name as string));
    const upJobs = rules.flatMap((x) => [...x.expr.matchAll(/job="([^"]+)"/g)].map((m) => m[1]!));
    expect(upJobs.sort()).toEqual([...scraped].sort());
    // the same rules as compose's, once the namespace and job names are mapped
    const jobOf: Record<string, string> = { 'rn-runnel-brokers': 'runnel-broker', 'rn-runnel-archiver': 'runnel-archiver' };
    const normal = rules.map((x) => ({ ...x, expr: x.expr.replace(/\{namespace="streaming"\}/g, '').replace(/namespace="streaming", /g, '').replace(/job="([^"]+)"/g, (_, j: string) => `job="${jobOf[j] ?? j}"`) }));
    expect(normal).toEqual(compose);
    // thresholds come from the values; the schema refuses a ratio above 1
    const tuned = await yamlDocs((await helmTemplate(['prometheusRule.enabled=true', 'prometheusRule.archiverLagSeconds=120'], ['--set-json', 'prometheusRule.redisMemoryRatio=0.9'])).stdout);
    const exprs = tuned.find((d) => d.kind === 'PrometheusRule')!.spec.groups[0].rules.map((x: Rule) => x.expr).join('\n');
    expect(exprs).toMatch(/> 0\) > 0\.9$/m);
    expect(exprs).toMatch(/runnel_archiver_lag_seconds\{[^}]*\}\) > 120$/m);
    const bad = await helmTemplate(['prometheusRule.enabled=true', 'prometheusRule.redisMemoryRatio=2']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/redisMemoryRatio/);
    const lint = await run(TOOL.helm, ['lint', '--strict', 'deploy/helm/runnel', '--set', 'prometheusRule.enabled=true']);
    expect(lint.code, lint.stdout + lint.stderr).toBe(0);
  });
});
