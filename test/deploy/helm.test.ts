// deploy/helm/runnel checked with real tools: rendered by `helm template` for
// every Redis mode and validated by kubeconform against the Kubernetes 1.37
// schemas; every RUNNEL_* variable it sets is then read by Runnel's own config
// loaders, so a misspelt setting fails here. kubeconform and the chart's own
// value checks are also shown broken input and must refuse it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../broker/src/config/config.js';
import { brokerHttpSettings } from '../../broker/src/http/broker-http.js';
import { serverTlsOptions } from '../../broker/src/security/tls-context.js';
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

// Issue 33: Kafka-listener TLS, SASL and ACLs, external access, name overrides
// and extra volumes. Each value is rendered and the result read back the way the
// cluster and the broker would: kubeconform, Runnel's loadBrokerConfig on the
// container's environment, the container's shell line run for a given pod.
describe('helm chart: Kafka security, external access, names and volumes (issue 33)', () => {
  const HTTP_AUTH = ['broker.http.auth.basicUser=ops', 'broker.http.auth.basicPassword=pw'];
  const SECURE = ['broker.kafka.tls.enabled=true', 'broker.kafka.tls.secretName=kafka-tls', 'broker.kafka.tls.clientAuth=required',
    'broker.kafka.sasl.enabled=true', 'broker.kafka.sasl.mechanisms={SCRAM-SHA-512,PLAIN}', 'broker.kafka.sasl.jaasConfigSecret=kafka-jaas',
    'broker.kafka.acls.enabled=true', 'broker.kafka.acls.superUsers={User:admin,User:CN=ops}', ...HTTP_AUTH];
  const broker = (docs: Array<Record<string, any>>): Record<string, any> => docs.find((d) => d.kind === 'StatefulSet')!;
  const container = (docs: Array<Record<string, any>>): Record<string, any> => broker(docs).spec.template.spec.containers[0];
  /** The render's documents; it must succeed without a word on stderr. */
  const docsOf = async (sets: string[]): Promise<Array<Record<string, any>>> => {
    const r = await helmTemplate(sets);
    expect(r.stderr, sets.join(' ')).toBe('');
    expect(r.code).toBe(0);
    return yamlDocs(r.stdout);
  };
  /** What pod <name> runs with: the args line as Kubernetes expands it ($(POD_NAME), $$), its exports taken by the shell. */
  const podEnv = async (c: Record<string, any>, pod: string): Promise<Record<string, string>> => {
    const env = envOf(c);
    const line = (c.args[0] as string).replaceAll('$(POD_NAME)', pod).replaceAll('$$', '$').replace(/exec node .*$/, 'env');
    const sh = await run('/bin/sh', ['-c', line], { env: { POD_NAME: pod } });
    expect(sh.code, sh.stderr).toBe(0);
    const exported = Object.fromEntries(sh.stdout.split('\n').filter((l) => l.startsWith('RUNNEL_')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    const out: Record<string, string> = { RUNNEL_REDIS_URL: 'redis://127.0.0.1:6379' };
    for (const [k, v] of Object.entries({ ...env, ...exported })) if (v !== '<from secret>' && k !== 'POD_NAME' && k !== 'RUNNEL_REDIS_URL') out[k] = v.replaceAll('$(POD_NAME)', pod);
    return out;
  };

  it('defaults add nothing: the same objects and broker environment as before, and the new values at their defaults render byte for byte the same', async () => {
    const plain = await helmTemplate();
    const docs = await yamlDocs(plain.stdout);
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`).sort()).toEqual([
      'Deployment/rn-runnel-archiver', 'PodDisruptionBudget/rn-runnel-broker', 'Secret/rn-runnel-redis', 'Service/rn-runnel',
      'Service/rn-runnel-archiver', 'Service/rn-runnel-brokers', 'ServiceAccount/rn-runnel', 'StatefulSet/rn-runnel-broker',
    ]);
    const c = container(docs);
    expect(c.env.map((e: any) => e.name)).toEqual(['POD_NAME', 'RUNNEL_HOST', 'RUNNEL_PORT', 'RUNNEL_ADVERTISED_HOST', 'RUNNEL_ADVERTISED_PORT', 'RUNNEL_HTTP_PORT',
      'RUNNEL_HTTP_HOST', 'RUNNEL_HTTP_CONSOLE_ENABLE', 'RUNNEL_MIN_INSYNC_REPLICAS', 'RUNNEL_REDIS_ACKS_ALL_WAITAOF', 'RUNNEL_REDIS_URL',
      'RUNNEL_LAKE', 'RUNNEL_S3_REGION']); // the archiver's lake, for tiered topics (lake-env.test.ts)
    expect(c.args[0]).toBe('export RUNNEL_NODE_ID=$$(( ${POD_NAME##*-} + 1 )) && exec node /app/dist/cli/runnel.js broker');
    expect(c.ports.map((p: any) => p.name)).toEqual(['kafka', 'http']);
    expect(broker(docs).spec.template.spec.volumes.map((v: any) => v.name)).toEqual(['tmp', 'data']);
    const explicit = await helmTemplate(['nameOverride=', 'fullnameOverride=', 'broker.kafka.tls.enabled=false', 'broker.kafka.sasl.enabled=false',
      'broker.kafka.acls.enabled=false', 'broker.external.enabled=false', 'broker.extraVolumes=null', 'archiver.extraVolumeMounts=null']);
    expect(explicit.stdout).toBe(plain.stdout);
  });

  it('tls + sasl + acls: a SASL_SSL listener CLIENT beside PLAINTEXT, PEM files from the Secret, JAAS from its Secret, the authorizer on; loadBrokerConfig reads it all', async () => {
    const docs = await docsOf(SECURE);
    const c = container(docs);
    expectKnownNames(envOf(c), BROKER_ENV, 'secure broker');
    const cfg = loadBrokerConfig([], { ...(await podEnv(c, 'rn-runnel-broker-1')), RUNNEL_NODE_ID: '2' });
    const host = 'rn-runnel-broker-1.rn-runnel-brokers.streaming.svc.cluster.local';
    expect(cfg.listeners.map((l) => [l.name, l.securityProtocol, `${l.host}:${l.port}`, `${l.advertisedHost}:${l.advertisedPort}`])).toEqual([
      ['PLAINTEXT', 'PLAINTEXT', '0.0.0.0:9092', `${host}:9092`],
      ['CLIENT', 'SASL_SSL', '0.0.0.0:9093', `${host}:9093`],
    ]);
    // the PEM files are where the Secret is mounted, under the Secret's keys
    const ssl = cfg.listeners[1]!.ssl!;
    const mount = c.volumeMounts.find((m: any) => m.name === 'kafka-tls');
    expect(mount).toEqual({ name: 'kafka-tls', mountPath: '/etc/runnel/kafka-tls', readOnly: true });
    expect(broker(docs).spec.template.spec.volumes.find((v: any) => v.name === 'kafka-tls')).toEqual({ name: 'kafka-tls', secret: { secretName: 'kafka-tls' } });
    expect([ssl.keystoreLocation, ssl.truststoreLocation, ssl.clientAuth]).toEqual(['/etc/runnel/kafka-tls/tls-combined.pem', '/etc/runnel/kafka-tls/ca.crt', 'required']);
    // a Secret laid out as cert-manager writes it (CombinedPEM: key, then chain; ca.crt) is what the broker's TLS loader accepts
    const dir = tempFiles({});
    const gen = await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=rn-runnel-broker-1', '-days', '1',
      '-keyout', join(dir, 'tls.key'), '-out', join(dir, 'tls.crt')]);
    expect(gen.code, gen.stderr).toBe(0);
    writeFileSync(join(dir, 'tls-combined.pem'), readFileSync(join(dir, 'tls.key'), 'utf8') + readFileSync(join(dir, 'tls.crt'), 'utf8'));
    writeFileSync(join(dir, 'ca.crt'), readFileSync(join(dir, 'tls.crt')));
    const mounted = { ...ssl, keystoreLocation: ssl.keystoreLocation.replace(mount.mountPath, dir), truststoreLocation: ssl.truststoreLocation.replace(mount.mountPath, dir) };
    expect(serverTlsOptions(mounted)).toMatchObject({ key: expect.stringContaining('PRIVATE KEY'), ca: [expect.stringContaining('BEGIN CERTIFICATE')] });
    expect(cfg.saslEnabledMechanisms).toBe('SCRAM-SHA-512,PLAIN');
    expect(c.env.find((e: any) => e.name === 'RUNNEL_SASL_JAAS_CONFIG').valueFrom.secretKeyRef).toEqual({ name: 'kafka-jaas', key: 'sasl.jaas.config' });
    expect([cfg.authorizerClassName, cfg.superUsers, cfg.allowEveryoneIfNoAclFound]).toEqual([AUTHORIZER, 'User:admin;User:CN=ops', false]);
    // secrets stay out of the manifests: no ConfigMap, and no Secret of the chart's holds JAAS text
    expect(docs.some((d) => d.kind === 'ConfigMap')).toBe(false);
    expect(JSON.stringify(docs)).not.toContain('LoginModule');
    // clients in the cluster reach CLIENT through the bootstrap Service
    const bootstrap = docs.find((d) => d.kind === 'Service' && d.metadata.name === 'rn-runnel')!;
    expect(bootstrap.spec.ports.find((p: any) => p.name === 'kafka-client')).toEqual({ name: 'kafka-client', port: 9093, targetPort: 'kafka-client' });
    expect(c.ports.find((p: any) => p.name === 'kafka-client').containerPort).toBe(9093);
    // TLS alone is SSL, SASL alone SASL_PLAINTEXT; client auth off reads no truststore
    const tlsOnly = loadBrokerConfig([], await podEnv(container(await docsOf(['broker.kafka.tls.enabled=true', 'broker.kafka.tls.secretName=s'])), 'rn-runnel-broker-0'));
    expect(tlsOnly.listeners.map((l) => l.securityProtocol)).toEqual(['PLAINTEXT', 'SSL']);
    expect([tlsOnly.listeners[1]!.ssl!.clientAuth, tlsOnly.listeners[1]!.ssl!.truststoreLocation]).toEqual(['none', '']);
    const saslOnly = loadBrokerConfig([], await podEnv(container(await docsOf(['broker.kafka.sasl.enabled=true'])), 'rn-runnel-broker-0'));
    expect(saslOnly.listeners.map((l) => l.securityProtocol)).toEqual(['PLAINTEXT', 'SASL_PLAINTEXT']);
    expect(saslOnly.saslEnabledMechanisms).toBe('PLAIN,SCRAM-SHA-256,SCRAM-SHA-512');
  });

  it('external access: one Service per broker selecting its pod; each broker advertises <pod>.<domain> on EXTERNAL (LoadBalancer: the Service port; NodePort: nodePortBase + ordinal)', async () => {
    const lb = await docsOf([...SECURE, 'broker.external.enabled=true', 'broker.external.domain=kafka.example.com', 'broker.external.annotations.a=b']);
    const np = await docsOf(['broker.external.enabled=true', 'broker.external.type=NodePort', 'broker.external.domain=kafka.example.com', 'broker.replicas=2']);
    const external = (docs: Array<Record<string, any>>): Array<Record<string, any>> => docs.filter((d) => d.kind === 'Service' && d.metadata.name.endsWith('-external'));
    expect(external(lb).map((s) => s.metadata.name)).toEqual(['rn-runnel-broker-0-external', 'rn-runnel-broker-1-external', 'rn-runnel-broker-2-external']);
    for (const [i, s] of external(lb).entries()) {
      expect(s.spec.type).toBe('LoadBalancer');
      expect(s.metadata.annotations).toEqual({ a: 'b' });
      expect(s.spec.selector).toEqual({ ...broker(lb).spec.selector.matchLabels, 'statefulset.kubernetes.io/pod-name': `rn-runnel-broker-${i}` });
      expect(s.spec.ports).toEqual([{ name: 'kafka-external', port: 9094, targetPort: 'kafka-external' }]);
    }
    expect(external(np).map((s) => [s.spec.type, s.spec.ports[0].nodePort])).toEqual([['NodePort', 31090], ['NodePort', 31091]]);
    const lbCfg = loadBrokerConfig([], await podEnv(container(lb), 'rn-runnel-broker-2'));
    expect(lbCfg.nodeId).toBe(3);
    expect(lbCfg.listeners.map((l) => [l.name, l.securityProtocol, l.port, `${l.advertisedHost}:${l.advertisedPort}`])).toEqual([
      ['PLAINTEXT', 'PLAINTEXT', 9092, 'rn-runnel-broker-2.rn-runnel-brokers.streaming.svc.cluster.local:9092'],
      ['CLIENT', 'SASL_SSL', 9093, 'rn-runnel-broker-2.rn-runnel-brokers.streaming.svc.cluster.local:9093'],
      ['EXTERNAL', 'SASL_SSL', 9094, 'rn-runnel-broker-2.kafka.example.com:9094'],
    ]);
    const npCfg = loadBrokerConfig([], await podEnv(container(np), 'rn-runnel-broker-1'));
    expect(npCfg.listeners.map((l) => [l.name, l.securityProtocol, `${l.advertisedHost}:${l.advertisedPort}`])).toEqual([
      ['PLAINTEXT', 'PLAINTEXT', 'rn-runnel-broker-1.rn-runnel-brokers.streaming.svc.cluster.local:9092'],
      ['EXTERNAL', 'PLAINTEXT', 'rn-runnel-broker-1.kafka.example.com:31091'],
    ]);
    expect(container(np).ports.find((p: any) => p.name === 'kafka-external').containerPort).toBe(9094);
    const dir = tempFiles({ 'lb.yaml': (await helmTemplate([...SECURE, 'broker.external.enabled=true', 'broker.external.domain=kafka.example.com'])).stdout, 'np.yaml': (await helmTemplate(['broker.external.enabled=true', 'broker.external.type=NodePort', 'broker.external.domain=k.example'])).stdout });
    const r = await kubeconform([join(dir, 'lb.yaml'), join(dir, 'np.yaml')]);
    expect(JSON.parse(r.stdout).summary).toMatchObject({ invalid: 0, errors: 0 });
    expect(r.code).toBe(0);
  });

  it('nameOverride and fullnameOverride rename every object; labels, selectors and the ServiceMonitor follow', async () => {
    const named = await docsOf(['nameOverride=stream', 'serviceMonitor.enabled=true']);
    expect(named.map((d) => d.metadata.name).sort()).toEqual(['rn-stream', 'rn-stream', 'rn-stream-archiver', 'rn-stream-archiver', 'rn-stream-broker', 'rn-stream-broker', 'rn-stream-brokers', 'rn-stream-redis', 'rn-stream']
      .sort());
    for (const d of named) expect(d.metadata.labels['app.kubernetes.io/name'], `${d.kind}/${d.metadata.name}`).toBe('stream');
    expect(broker(named).spec.selector.matchLabels['app.kubernetes.io/name']).toBe('stream');
    expect(broker(named).spec.serviceName).toBe('rn-stream-brokers');
    expect(envOf(container(named)).RUNNEL_ADVERTISED_HOST).toBe('$(POD_NAME).rn-stream-brokers.streaming.svc.cluster.local');
    const sm = named.find((d) => d.kind === 'ServiceMonitor')!;
    const scraped = named.filter((d) => d.kind === 'Service' && Object.entries(sm.spec.selector.matchLabels).every(([k, v]) => d.metadata.labels[k] === v) && d.metadata.labels['runnel.io/metrics'] === 'true');
    expect(scraped.map((s) => s.metadata.name).sort()).toEqual(['rn-stream-archiver', 'rn-stream-brokers']);
    const full = await docsOf(['fullnameOverride=kafka']);
    expect(full.map((d) => d.metadata.name).sort()).toEqual(['kafka', 'kafka', 'kafka-archiver', 'kafka-archiver', 'kafka-broker', 'kafka-broker', 'kafka-brokers', 'kafka-redis']);
    expect(full.find((d) => d.kind === 'Secret')!.metadata.name).toBe('kafka-redis');
    expect(container(full).env.find((e: any) => e.name === 'RUNNEL_REDIS_URL').valueFrom.secretKeyRef.name).toBe('kafka-redis');
    expect(full.every((d) => d.metadata.labels['app.kubernetes.io/name'] === 'runnel')).toBe(true);
  });

  it('extraVolumes / extraVolumeMounts add to the broker and the archiver pods after the chart\'s own', async () => {
    const docs = await docsOf(['broker.extraVolumes[0].name=plugins', 'broker.extraVolumes[0].configMap.name=rn-plugins', 'broker.extraVolumeMounts[0].name=plugins', 'broker.extraVolumeMounts[0].mountPath=/etc/runnel/plugins',
      'archiver.extraVolumes[0].name=lake', 'archiver.extraVolumes[0].persistentVolumeClaim.claimName=lake', 'archiver.extraVolumeMounts[0].name=lake', 'archiver.extraVolumeMounts[0].mountPath=/lake',
      'broker.extraEnv[0].name=NODE_ENV', 'broker.extraEnv[0].value=production']);
    const b = broker(docs).spec.template.spec;
    expect(b.volumes.map((v: any) => v.name)).toEqual(['tmp', 'data', 'plugins']);
    expect(b.volumes[2]).toEqual({ name: 'plugins', configMap: { name: 'rn-plugins' } });
    expect(b.containers[0].volumeMounts.at(-1)).toEqual({ name: 'plugins', mountPath: '/etc/runnel/plugins' });
    expect(envOf(b.containers[0]).NODE_ENV).toBe('production');
    const a = docs.find((d) => d.kind === 'Deployment')!.spec.template.spec;
    expect(a.volumes.at(-1)).toEqual({ name: 'lake', persistentVolumeClaim: { claimName: 'lake' } });
    expect(a.containers[0].volumeMounts.at(-1)).toEqual({ name: 'lake', mountPath: '/lake' });
    const dir = tempFiles({ 'v.yaml': (await helmTemplate(['broker.extraVolumes[0].name=plugins', 'broker.extraVolumes[0].configMap.name=p', 'broker.extraVolumeMounts[0].name=plugins', 'broker.extraVolumeMounts[0].mountPath=/p'])).stdout });
    expect((await kubeconform([join(dir, 'v.yaml')])).code).toBe(0);
  });

  it('refuses wrong types (values.schema.json) and combinations the broker would refuse or the chart cannot honour', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['broker.kafka.tls.clientAuth=maybe'], /\/broker\/kafka\/tls\/clientAuth.*value must be one of/],
      [['broker.kafka.tls.enabled=yes'], /\/broker\/kafka\/tls\/enabled.*got string, want boolean/],
      [['broker.kafka.sasl.mechanisms={GSSAPI}'], /\/broker\/kafka\/sasl\/mechanisms\/0.*value must be one of/],
      [['broker.kafka.acls.superUsers={admin}'], /\/broker\/kafka\/acls\/superUsers\/0.*does not match pattern/],
      [['broker.kafka.port=70000'], /\/broker\/kafka\/port.*maximum/],
      [['broker.external.type=ClusterIP'], /\/broker\/external\/type.*value must be one of/],
      [['broker.external.nodePortBase=80'], /\/broker\/external\/nodePortBase.*minimum/],
      [['broker.extraVolumeMounts[0].name=x'], /\/broker\/extraVolumeMounts\/0.*missing property 'mountPath'/],
      [['archiver.extraVolumes={a}'], /\/archiver\/extraVolumes\/0.*got string, want object/],
      [['nameOverride=Bad_Name'], /\/nameOverride.*does not match pattern/],
      [['broker.kafka.tls.enabled=true'], /broker.kafka.tls.secretName is needed/],
      [['broker.external.enabled=true'], /broker.external.domain is needed/],
      [['broker.kafka.acls.enabled=true'], /broker.kafka.acls.enabled: set broker.http.auth/],
      [['broker.kafka.sasl.enabled=true', 'broker.config.listeners=PLAINTEXT://:9092'], /broker.config sets listeners: the chart sets it/],
      [['broker.kafka.acls.enabled=true', ...HTTP_AUTH, 'broker.config.super\\.users=User:x'], /broker.config sets super.users: use broker.kafka.acls/],
    ];
    for (const [sets, message] of cases) {
      const r = await helmTemplate(sets);
      expect(r.code, sets.join(' ')).not.toBe(0);
      expect(r.stderr, sets.join(' ')).toMatch(message);
    }
    const lint = await run(TOOL.helm, ['lint', '--strict', 'deploy/helm/runnel', ...[...SECURE, 'broker.external.enabled=true', 'broker.external.domain=k.example', 'nameOverride=s'].flatMap((s) => ['--set', s])]);
    expect(lint.stdout + lint.stderr).toContain('0 chart(s) failed');
  });
});
