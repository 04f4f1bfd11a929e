// deploy/helm/runnel checked with real tools: rendered by `helm template` for
// every Redis mode and validated by kubeconform against the Kubernetes 1.37
// schemas; every RUNNEL_* variable it sets is then read by Runnel's own config
// loaders, so a misspelt setting fails here. kubeconform and the chart's own
// value checks are also shown broken input and must refuse it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../broker/src/config/config.js';
import { brokerHttpSettings } from '../../broker/src/http/broker-http.js';
import { loadConfig as loadArchiverConfig } from '../../archiver/src/config.js';
import { parseRedisEndpoints } from '../../common/redis/endpoints.js';
import { ARCHIVER_NAMES, BROKER_ENV, envOf, expectKnownNames, helmTemplate, kubeconform, requireTools, ROOT, run, tempFiles, TOOL, yamlDocs } from './tools.js';

const AUTHORIZER = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: { runnel: string } };

beforeAll(() => requireTools());

describe('helm chart deploy/helm/runnel', () => {
  const modes: Record<string, string[]> = {
    standalone: ['redis.password=p@ss:w/rd', 'redis.username=runnel', 's3.accessKeyId=AK', 's3.secretAccessKey=SK', 'serviceMonitor.enabled=true'],
    cluster: ['redis.mode=cluster', 'redis.endpoints={rc-0.rc:6379,rc-1.rc:6379,rc-2.rc:6379}', 'redis.tls.enabled=true', 'redis.tls.secretName=redis-ca', 'redis.tls.clientCertificate=true'],
    'enterprise-proxy': ['redis.mode=enterprise-proxy', 'redis.endpoints={redis-12000.example.internal:12000}', 'redis.db=0', 'redis.password=pw'],
    'enterprise-cluster': ['redis.mode=enterprise-cluster', 'redis.endpoints={re-a.example.internal:12000,re-b.example.internal:12000}', 'archiver.enabled=false'],
    'http-auth': ['broker.http.console=true', 'broker.http.auth.basicUser=ops', 'broker.http.auth.basicPassword=pw:7@x', 'broker.http.auth.bearerToken=tok-1', `broker.config.authorizer\\.class\\.name=${AUTHORIZER}`],
    'existing-secrets': ['redis.existingSecret=my-redis', 's3.existingSecret=my-s3', 'broker.replicas=5', 'broker.config.num\\.partitions=6', 'archiver.config.RUNNEL_ARCHIVER_WORKERS=2'],
  };
  const rendered: Record<string, Array<Record<string, any>>> = {};
  const files: Record<string, string> = {};

  beforeAll(async () => {
    const outs = await Promise.all(Object.entries(modes).map(async ([name, sets]) => [name, await helmTemplate(sets)] as const));
    for (const [name, r] of outs) {
      expect(r.stderr, `helm template (${name})`).toBe('');
      expect(r.code, `helm template (${name})`).toBe(0);
      files[`${name}.yaml`] = r.stdout;
      rendered[name] = await yamlDocs(r.stdout);
    }
  });

  it('helm lint --strict passes', async () => {
    const r = await run(TOOL.helm, ['lint', '--strict', 'deploy/helm/runnel']);
    expect(r.stdout + r.stderr).toContain('0 chart(s) failed');
    expect(r.code).toBe(0);
  });

  it('every rendered manifest of every Redis mode is valid for Kubernetes (kubeconform -strict)', async () => {
    const dir = tempFiles(files);
    const r = await kubeconform(Object.keys(files).map((f) => join(dir, f)));
    const summary = JSON.parse(r.stdout).summary as { valid: number; invalid: number; errors: number; skipped: number };
    const total = Object.values(rendered).reduce((n, docs) => n + docs.length, 0);
    expect(summary).toEqual({ valid: total - 1, invalid: 0, errors: 0, skipped: 1 }); // the one ServiceMonitor is skipped
    expect(r.code).toBe(0);
  });

  it('kubeconform refuses a manifest the chart renders from a misspelt extraEnv entry', async () => {
    const bad = await helmTemplate(['broker.extraEnv[0].nam=X']);
    expect(bad.code).toBe(0); // helm renders it; the API server would refuse it
    const dir = tempFiles({ 'bad.yaml': bad.stdout });
    const r = await kubeconform([join(dir, 'bad.yaml')]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toContain("missing property 'name'");
    expect(r.stdout).toContain("additional properties 'nam' not allowed");
  });

  it('the chart refuses wrong values (values.schema.json) and an endpoint list that does not match redis.mode', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['redis.endpoints={a:6379,b:6379}'], /redis.mode=standalone takes exactly one endpoint/],
      [['redis.mode=cluster', 'redis.endpoints={a:7000}', 'redis.db=1'], /has only database 0/],
      [['redis.mode=sentinel'], /\/redis\/mode.*value must be one of/],
      [['redis.endpoints={redis.example}'], /\/redis\/endpoints\/0.*does not match pattern/],
      [['broker.replicas=three'], /\/broker\/replicas.*got string, want integer/],
      [['archiver.config.WORKERS=2'], /'WORKERS' does not match pattern '\^RUNNEL_'/],
    ];
    for (const [sets, message] of cases) {
      const r = await helmTemplate(sets);
      expect(r.code, sets.join(' ')).not.toBe(0);
      expect(r.stderr).toMatch(message);
    }
  });

  it('brokers: a StatefulSet behind a headless Service, each pod advertising its own DNS name', () => {
    const docs = rendered.standalone!;
    const sts = docs.find((d) => d.kind === 'StatefulSet')!;
    const headless = docs.find((d) => d.kind === 'Service' && d.spec.clusterIP === 'None')!;
    expect(sts.spec.serviceName).toBe(headless.metadata.name);
    expect(headless.spec.publishNotReadyAddresses).toBe(true);
    expect(headless.spec.selector).toEqual(sts.spec.selector.matchLabels);
    const c = sts.spec.template.spec.containers[0];
    const env = envOf(c);
    expect(env.RUNNEL_ADVERTISED_HOST).toBe(`$(POD_NAME).${headless.metadata.name}.streaming.svc.cluster.local`);
    // Kubernetes expands $(POD_NAME) only when POD_NAME is defined earlier in the list
    const names = c.env.map((e: any) => e.name);
    expect(names.indexOf('POD_NAME')).toBeLessThan(names.indexOf('RUNNEL_ADVERTISED_HOST'));
    expect(c.env[names.indexOf('POD_NAME')].valueFrom.fieldRef.fieldPath).toBe('metadata.name');
    expect(c.readinessProbe.httpGet).toEqual({ path: '/ready', port: 'http' });
    expect(c.livenessProbe.httpGet).toEqual({ path: '/health', port: 'http' });
    expect(c.ports.find((p: any) => p.name === 'http').containerPort).toBe(Number(env.RUNNEL_HTTP_PORT));
    expect(c.resources.requests).toBeDefined();
    expect(sts.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
  });

  it('the broker environment is read by loadBrokerConfig: node.id (from the pod ordinal), advertised address and HTTP port per pod', async () => {
    for (const [mode, docs] of Object.entries(rendered)) {
      const c = docs.find((d) => d.kind === 'StatefulSet')!.spec.template.spec.containers[0];
      const env = envOf(c);
      expectKnownNames(env, BROKER_ENV, `broker (${mode})`);
      // The container's shell line, as Kubernetes hands it over ($$ -> $), run for the pod named rn-runnel-broker-2.
      const line = (c.args[0] as string).replaceAll('$$', '$');
      expect(line).toMatch(new RegExp(`exec node /app/${pkg.bin.runnel} broker$`));
      const sh = await run('/bin/sh', ['-c', line.replace(/exec node .*$/, 'echo "$RUNNEL_NODE_ID"')], { env: { POD_NAME: 'rn-runnel-broker-2' } });
      const pod: Record<string, string> = { ...env, RUNNEL_NODE_ID: sh.stdout.trim(), RUNNEL_REDIS_URL: 'redis://127.0.0.1:6379' };
      pod.RUNNEL_ADVERTISED_HOST = env.RUNNEL_ADVERTISED_HOST!.replace('$(POD_NAME)', 'rn-runnel-broker-2');
      delete pod.POD_NAME;
      const cfg = loadBrokerConfig([], pod);
      expect(cfg.nodeId).toBe(3); // ordinal 2 + nodeIdOffset 1
      expect(cfg.advertisedHost).toBe('rn-runnel-broker-2.rn-runnel-brokers.streaming.svc.cluster.local');
      expect(cfg.host).toBe('0.0.0.0');
      expect(cfg.httpPort).toBe(8080);
      if (mode === 'existing-secrets') expect(cfg.numPartitions).toBe(6);
    }
  });

  it('the Redis URL in the Secret is parsed by Runnel as the mode intends', () => {
    const url = (mode: string): string => rendered[mode]!.find((d) => d.kind === 'Secret' && d.stringData?.['redis-url'])!.stringData['redis-url'];
    const standalone = parseRedisEndpoints(url('standalone'));
    expect(standalone).toMatchObject({ username: 'runnel', password: 'p@ss:w/rd', tls: false, seeds: [{ host: 'redis-master.redis.svc.cluster.local', port: 6379 }] });
    const cluster = parseRedisEndpoints(url('cluster'));
    expect(cluster.tls).toBe(true);
    expect(cluster.seeds.map((s) => `${s.host}:${s.port}`)).toEqual(['rc-0.rc:6379', 'rc-1.rc:6379', 'rc-2.rc:6379']);
    expect(parseRedisEndpoints(url('enterprise-proxy'))).toMatchObject({ db: 0, password: 'pw', seeds: [{ host: 'redis-12000.example.internal', port: 12000 }] });
    expect(parseRedisEndpoints(url('enterprise-cluster')).seeds).toHaveLength(2);
    // an existing Secret is referenced, not rendered
    const docs = rendered['existing-secrets']!;
    expect(docs.filter((d) => d.kind === 'Secret')).toEqual([]);
    const ref = docs.find((d) => d.kind === 'StatefulSet')!.spec.template.spec.containers[0].env.find((e: any) => e.name === 'RUNNEL_REDIS_URL');
    expect(ref.valueFrom.secretKeyRef).toEqual({ name: 'my-redis', key: 'redis-url' });
  });

  it('the archiver Deployment: its environment is read by the archiver config, S3 keys from a Secret', () => {
    for (const [mode, docs] of Object.entries(rendered)) {
      const dep = docs.find((d) => d.kind === 'Deployment');
      if (mode === 'enterprise-cluster') { expect(dep).toBeUndefined(); continue; }
      const c = dep!.spec.template.spec.containers[0];
      const env = envOf(c);
      expectKnownNames(env, ARCHIVER_NAMES, `archiver (${mode})`);
      const cfg = loadArchiverConfig({ ...env, RUNNEL_REDIS_URL: 'redis://127.0.0.1:6379' });
      expect(cfg.httpPort).toBe(8081);
      expect(cfg.lake).toContain('s3://runnel-lake/lake');
      expect(c.args).toEqual(['archiver']);
      if (mode === 'existing-secrets') expect(c.envFrom).toEqual([{ secretRef: { name: 'my-s3' } }]);
      if (mode === 'cluster') expect(env.RUNNEL_REDIS_TLS_CERT_LOCATION).toBe('/etc/runnel/redis-tls/tls.crt');
    }
  });

  it('the ServiceMonitor (CRD, no Kubernetes schema) selects the broker and archiver metrics Services by their http port', () => {
    const docs = rendered.standalone!;
    const sm = docs.find((d) => d.kind === 'ServiceMonitor')!;
    expect(sm.apiVersion).toBe('monitoring.coreos.com/v1');
    const want = sm.spec.selector.matchExpressions[0];
    const selected = docs.filter((d) => d.kind === 'Service' && d.metadata.labels[want.key] === want.values[0]);
    expect(selected.map((s) => s.metadata.labels['app.kubernetes.io/component']).sort()).toEqual(['archiver', 'broker']);
    for (const s of selected) expect(s.spec.ports.map((p: any) => p.name)).toContain(sm.spec.endpoints[0].port);
    expect(sm.spec.endpoints[0].path).toBe('/metrics');
    expect(rendered.cluster!.some((d) => d.kind === 'ServiceMonitor')).toBe(false); // off by default
  });
  it('the HTTP endpoint ships safe: console off and no credential by default; credentials come from a Secret, the console and an authorizer need them (issue 27)', async () => {
    const env = (mode: string) => envOf(rendered[mode]!.find((d) => d.kind === 'StatefulSet')!.spec.template.spec.containers[0]);
    // default: the console is off (the broker's own default is on)
    expect(loadBrokerConfig([], env('standalone')).httpConsoleEnable).toBe(false);
    expect(rendered.standalone!.some((d) => d.kind === 'Secret' && d.metadata.name.endsWith('-http'))).toBe(false);
    // with credentials: a Secret, referenced by the broker's http.auth.* variables, which the broker accepts with its authorizer on
    const docs = rendered['http-auth']!;
    const secret = docs.find((d) => d.kind === 'Secret' && d.metadata.name === 'rn-runnel-http')!;
    expect(secret.stringData).toEqual({ 'basic-user': 'ops', 'basic-password': 'pw:7@x', 'bearer-token': 'tok-1' });
    const c = docs.find((d) => d.kind === 'StatefulSet')!.spec.template.spec.containers[0];
    const refs = Object.fromEntries(c.env.filter((e: any) => e.valueFrom?.secretKeyRef?.name === 'rn-runnel-http').map((e: any) => [e.name, e.valueFrom.secretKeyRef.key]));
    expect(refs).toEqual({ RUNNEL_HTTP_AUTH_BASIC_USER: 'basic-user', RUNNEL_HTTP_AUTH_BASIC_PASSWORD: 'basic-password', RUNNEL_HTTP_AUTH_BEARER_TOKEN: 'bearer-token' });
    const pod = { ...env('http-auth'), RUNNEL_REDIS_URL: 'redis://127.0.0.1:6379', RUNNEL_NODE_ID: '1', RUNNEL_ADVERTISED_HOST: 'b', RUNNEL_HTTP_AUTH_BASIC_USER: 'ops', RUNNEL_HTTP_AUTH_BASIC_PASSWORD: 'pw:7@x', RUNNEL_HTTP_AUTH_BEARER_TOKEN: 'tok-1' };
    delete (pod as Record<string, string>).POD_NAME;
    const cfg = loadBrokerConfig([], pod);
    expect([cfg.httpConsoleEnable, cfg.authorizerClassName]).toEqual([true, AUTHORIZER]);
    expect(brokerHttpSettings(cfg)).toMatchObject({ host: '0.0.0.0', basicUser: 'ops', basicPassword: 'pw:7@x', bearerToken: 'tok-1' });
    // the same environment without its credentials is what the broker refuses (RN3003); the chart refuses to render it
    expect(() => brokerHttpSettings(loadBrokerConfig([], { ...pod, RUNNEL_HTTP_AUTH_BASIC_USER: '', RUNNEL_HTTP_AUTH_BASIC_PASSWORD: '', RUNNEL_HTTP_AUTH_BEARER_TOKEN: '' }))).toThrow(/^RN3003/);
    for (const [sets, message] of [
      [[`broker.config.authorizer\\.class\\.name=${AUTHORIZER}`], /broker.config sets authorizer.class.name: set broker.http.auth .*RN3003/],
      [['broker.http.console=true'], /broker.http.console=true needs broker.http.auth/],
      [['broker.http.auth.basicUser=ops'], /basicPassword is needed with broker.http.auth.basicUser/],
    ] as Array<[string[], RegExp]>) {
      const r = await helmTemplate(sets);
      expect(r.code, sets.join(' ')).not.toBe(0);
      expect(r.stderr).toMatch(message);
    }
    // Prometheus Operator scrapes /metrics with the same Secret; an existing Secret replaces the chart's
    const sm = (await yamlDocs((await helmTemplate(['broker.http.auth.existingSecret=ops-http', 'serviceMonitor.enabled=true'])).stdout)).find((d) => d.kind === 'ServiceMonitor')!;
    expect(sm.spec.endpoints[0].basicAuth).toEqual({ username: { name: 'ops-http', key: 'basic-user' }, password: { name: 'ops-http', key: 'basic-password' } });
    const bearer = (await yamlDocs((await helmTemplate(['broker.http.auth.bearerToken=t', 'serviceMonitor.enabled=true'])).stdout)).find((d) => d.kind === 'ServiceMonitor')!;
    expect(bearer.spec.endpoints[0].authorization).toEqual({ type: 'Bearer', credentials: { name: 'rn-runnel-http', key: 'bearer-token' } });
  });
});
