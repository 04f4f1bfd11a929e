// Tiered topics read the lake the archiver writes (docs/lake.md "Tiered
// topics"), so in every deployment the brokers must get the archiver's
// RUNNEL_LAKE, RUNNEL_S3_* and S3 credentials. Each deployment's broker and
// archiver environments are read by Runnel's own loaders (the broker's
// config and lake.ts, the archiver's config) and must resolve to the same
// lake; a broker without the lake settings, or with others, is shown to fail
// the same check.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../broker/src/config/config.js';
import { lakeUrl, s3PathStyle } from '../../broker/src/config/lake.js';
import { loadConfig as loadArchiverConfig } from '../../archiver/src/config.js';
import { parseProperties } from '../../common/config/properties.js';
import { envOf, helmTemplate, kubeconform, requireTools, ROOT, tempFiles, yamlDocs } from './tools.js';

type Env = Record<string, string>;
type Docs = Array<Record<string, any>>;
const read = (p: string): string => readFileSync(join(ROOT, p), 'utf8');

beforeAll(() => requireTools());

/** The variables that name the lake and reach it: Runnel's lake settings and the AWS SDK's keys. */
const LAKE_VAR = /^(RUNNEL_LAKE|RUNNEL_S3_[A-Z_]+|AWS_ACCESS_KEY_ID|AWS_SECRET_ACCESS_KEY)$/;
const lakeVars = (env: Env): Env => Object.fromEntries(Object.entries(env).filter(([k]) => LAKE_VAR.test(k)).sort(([a], [b]) => a.localeCompare(b)));

/** The lake as each process opens it: the broker through lakeUrl / s3PathStyle, the archiver through its config. */
const brokerLake = (env: Env): Record<string, unknown> => {
  const c = loadBrokerConfig([], env);
  return { lake: lakeUrl(c.lake, c.dataDir), s3Endpoint: c.s3Endpoint || undefined, s3ForcePathStyle: s3PathStyle(c.s3ForcePathStyle, c.s3Endpoint), s3Region: c.s3Region || undefined };
};
const archiverLake = (env: Env): Record<string, unknown> => {
  const c = loadArchiverConfig({ RUNNEL_REDIS_URL: 'redis://127.0.0.1:6379', ...env });
  return { lake: c.lake, s3Endpoint: c.s3Endpoint, s3ForcePathStyle: c.s3ForcePathStyle, s3Region: c.s3Region };
};

/** What differs between a broker's lake and the archiver's: the variables (values, or "<from secret>") and the lake each resolves. */
function lakeProblems(broker: Env, archiver: Env): string[] {
  const problems: string[] = [];
  const [b, a] = [lakeVars(broker), lakeVars(archiver)];
  if (!a.RUNNEL_LAKE) problems.push('the archiver names no lake');
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) if (a[k] !== b[k]) problems.push(`${k}: broker ${b[k] ?? '(unset)'}, archiver ${a[k] ?? '(unset)'}`);
  if (JSON.stringify(brokerLake(broker)) !== JSON.stringify(archiverLake(archiver))) problems.push(`resolved: broker ${JSON.stringify(brokerLake(broker))}, archiver ${JSON.stringify(archiverLake(archiver))}`);
  return problems;
}

describe('compose: the brokers read the archiver\'s lake', () => {
  const interpolate = (v: string): string => v.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');
  const envOfService = (s: Record<string, any>): Env => Object.fromEntries(Object.entries(s.environment as Env).map(([k, v]) => [k, interpolate(String(v))]));
  const problemsOf = (compose: Record<string, any>): string[] =>
    ['broker1', 'broker2', 'broker3'].flatMap((n) => lakeProblems(envOfService(compose.services[n]), envOfService(compose.services.archiver)).map((p) => `${n}: ${p}`));
  const text = read('deploy/compose/compose.yaml');
  let compose: Record<string, any>;
  beforeAll(async () => { compose = (await yamlDocs(text))[0]!; });

  it('every broker gets the archiver\'s RUNNEL_LAKE, RUNNEL_S3_* and MinIO keys, from one block written once', () => {
    expect(problemsOf(compose)).toEqual([]);
    for (const n of ['broker1', 'broker2', 'broker3']) expect(lakeVars(compose.services[n].environment)).toEqual(lakeVars(compose.services.archiver.environment)); // before interpolation too
    expect(brokerLake(envOfService(compose.services.broker2))).toEqual({ lake: 's3://runnel-lake/lake', s3Endpoint: 'http://minio:9000', s3ForcePathStyle: true, s3Region: 'us-east-1' });
    // one source: each lake variable is written once in the file (the x-lake-env anchor)
    for (const k of ['RUNNEL_LAKE', 'RUNNEL_S3_ENDPOINT', 'RUNNEL_S3_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) expect(text.match(new RegExp(`^\\s+${k}:`, 'gm')), k).toHaveLength(1);
  });

  it('the lake is the bucket minio-init creates on the minio service, reached with MinIO\'s root keys', () => {
    const env = envOfService(compose.services.broker1);
    const bucket = /mc mb --ignore-existing lake\/(\S+)/.exec(compose.services['minio-init'].entrypoint.join('\n'))![1];
    expect(new URL(env.RUNNEL_LAKE!).host).toBe(bucket);
    expect(compose.services[new URL(env.RUNNEL_S3_ENDPOINT!).hostname]).toBe(compose.services.minio);
    const minio = envOfService(compose.services.minio);
    expect([env.AWS_ACCESS_KEY_ID, env.AWS_SECRET_ACCESS_KEY]).toEqual([minio.MINIO_ROOT_USER, minio.MINIO_ROOT_PASSWORD]);
  });

  it('the check fails for a broker without the lake block, and for one whose lake differs', async () => {
    const without = (await yamlDocs(text.replace(/^x-broker-env: &broker-env\n {2}<<: \*lake-env\n/m, 'x-broker-env: &broker-env\n')))[0]!;
    expect(problemsOf(without)).toContain('broker1: RUNNEL_LAKE: broker (unset), archiver s3://runnel-lake/lake');
    const other = (await yamlDocs(text.replace('      RUNNEL_NODE_ID: "3"\n', '      RUNNEL_NODE_ID: "3"\n      RUNNEL_LAKE: s3://runnel-lake/other\n')))[0]!;
    expect(problemsOf(other)).toEqual([
      'broker3: RUNNEL_LAKE: broker s3://runnel-lake/other, archiver s3://runnel-lake/lake',
      expect.stringMatching(/^broker3: resolved: broker \{"lake":"s3:\/\/runnel-lake\/other"/),
    ]);
  });
});

describe('systemd: broker.env.example names the lake of archiver.env.example', () => {
  const broker = read('deploy/systemd/broker.env.example');
  const archiver = parseProperties(read('deploy/systemd/archiver.env.example'));

  it('the same lake lines, resolved to the same lake by both loaders; the check fails without them', () => {
    expect(lakeProblems(parseProperties(broker), archiver)).toEqual([]);
    expect(Object.keys(lakeVars(archiver))).toEqual(['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'RUNNEL_LAKE', 'RUNNEL_S3_REGION']);
    expect(brokerLake(parseProperties(broker))).toEqual({ lake: 's3://example-lake/runnel', s3Endpoint: undefined, s3ForcePathStyle: false, s3Region: 'eu-west-1' });
    const bare = parseProperties(broker.split('\n').filter((l) => !/^RUNNEL_(LAKE|S3_)/.test(l)).join('\n'));
    expect(lakeProblems(bare, archiver)).toEqual(expect.arrayContaining(['RUNNEL_LAKE: broker (unset), archiver s3://example-lake/runnel', 'RUNNEL_S3_REGION: broker (unset), archiver eu-west-1']));
  });
});

describe('helm: the brokers get the archiver\'s lake env and S3 Secret', () => {
  const render = async (sets: string[]): Promise<{ docs: Docs; yaml: string }> => {
    const r = await helmTemplate(sets);
    expect(r.stderr, sets.join(' ')).toBe('');
    expect(r.code).toBe(0);
    return { docs: await yamlDocs(r.stdout), yaml: r.stdout };
  };
  const pod = (docs: Docs, kind: string): Record<string, any> => docs.find((d) => d.kind === kind)!.spec.template;
  const container = (docs: Docs, kind: string): Record<string, any> => pod(docs, kind).spec.containers[0];
  /** A container's lake entries as Kubernetes gets them (value or valueFrom). */
  const lakeEntries = (c: Record<string, any>): unknown[] => (c.env as Array<{ name: string }>).filter((e) => LAKE_VAR.test(e.name));
  /** The container's environment with the pod's name expanded and the variables of an envFrom Secret the chart renders added. */
  const podEnv = (docs: Docs, c: Record<string, any>): Env => {
    const env: Env = {};
    for (const [k, v] of Object.entries(envOf(c))) if (k !== 'POD_NAME' && v !== '<from secret>') env[k] = v.replaceAll('$(POD_NAME)', 'rn-runnel-broker-0');
    for (const ref of (c.envFrom ?? []) as Array<{ secretRef: { name: string } }>) {
      const secret = docs.find((d) => d.kind === 'Secret' && d.metadata.name === ref.secretRef.name);
      if (secret) Object.assign(env, secret.stringData);
    }
    return env;
  };
  const S3 = ['archiver.lake=s3://prod-lake/runnel', 's3.endpoint=https://objects.example.internal', 's3.region=eu-west-1', 's3.forcePathStyle=false'];

  it('an S3 lake with keys: the same RUNNEL_LAKE / RUNNEL_S3_* entries and the chart\'s one Secret in both pods; both loaders open the same lake', async () => {
    const { docs, yaml } = await render([...S3, 's3.accessKeyId=AK', 's3.secretAccessKey=SK']);
    const [b, a] = [container(docs, 'StatefulSet'), container(docs, 'Deployment')];
    expect(lakeEntries(b)).toEqual([
      { name: 'RUNNEL_LAKE', value: 's3://prod-lake/runnel' }, { name: 'RUNNEL_S3_REGION', value: 'eu-west-1' },
      { name: 'RUNNEL_S3_ENDPOINT', value: 'https://objects.example.internal' }, { name: 'RUNNEL_S3_FORCE_PATH_STYLE', value: 'false' },
    ]);
    expect(lakeEntries(a)).toEqual(lakeEntries(b));
    expect(b.envFrom).toEqual([{ secretRef: { name: 'rn-runnel-s3' } }]);
    expect(a.envFrom).toEqual(b.envFrom);
    expect(docs.find((d) => d.metadata.name === 'rn-runnel-s3')!.stringData).toEqual({ AWS_ACCESS_KEY_ID: 'AK', AWS_SECRET_ACCESS_KEY: 'SK' });
    const [benv, aenv] = [podEnv(docs, b), podEnv(docs, a)];
    expect(lakeProblems(benv, aenv)).toEqual([]);
    expect(brokerLake(benv)).toEqual({ lake: 's3://prod-lake/runnel', s3Endpoint: 'https://objects.example.internal', s3ForcePathStyle: false, s3Region: 'eu-west-1' });
    expect([benv.AWS_ACCESS_KEY_ID, benv.AWS_SECRET_ACCESS_KEY]).toEqual(['AK', 'SK']);
    // new keys roll both pods (env from a Secret is read at start)
    const rolled = (await render([...S3, 's3.accessKeyId=AK', 's3.secretAccessKey=SK2'])).docs;
    for (const kind of ['StatefulSet', 'Deployment']) {
      expect(pod(docs, kind).metadata.annotations['checksum/s3-secret'], kind).toBe(pod(docs, 'StatefulSet').metadata.annotations['checksum/s3-secret']);
      expect(pod(rolled, kind).metadata.annotations['checksum/s3-secret'], kind).not.toBe(pod(docs, kind).metadata.annotations['checksum/s3-secret']);
    }
    const r = await kubeconform([join(tempFiles({ 's3.yaml': yaml }), 's3.yaml')]);
    expect(JSON.parse(r.stdout).summary).toMatchObject({ invalid: 0, errors: 0 });
    expect(r.code).toBe(0);
  });

  it('s3.existingSecret: both pods load it, the chart renders no S3 Secret; the endpoint turns path-style on for both', async () => {
    const { docs } = await render(['s3.existingSecret=lake-creds', 's3.endpoint=http://minio.minio.svc:9000']);
    const [b, a] = [container(docs, 'StatefulSet'), container(docs, 'Deployment')];
    expect(b.envFrom).toEqual([{ secretRef: { name: 'lake-creds' } }]);
    expect(a.envFrom).toEqual(b.envFrom);
    expect(docs.filter((d) => d.kind === 'Secret').map((d) => d.metadata.name)).toEqual(['rn-runnel-redis']);
    expect(lakeEntries(a)).toEqual(lakeEntries(b));
    const [benv, aenv] = [podEnv(docs, b), podEnv(docs, a)];
    expect(lakeProblems(benv, aenv)).toEqual([]);
    expect(brokerLake(benv)).toEqual({ lake: 's3://runnel-lake/lake', s3Endpoint: 'http://minio.minio.svc:9000', s3ForcePathStyle: true, s3Region: 'us-east-1' });
  });

  it('no keys (IRSA): no envFrom, and both pods run as the one annotated ServiceAccount', async () => {
    const { docs } = await render(['serviceAccount.annotations.eks\\.amazonaws\\.com/role-arn=arn:aws:iam::1:role/lake']);
    const [b, a] = [container(docs, 'StatefulSet'), container(docs, 'Deployment')];
    expect([b.envFrom, a.envFrom]).toEqual([undefined, undefined]);
    expect(lakeEntries(b)).toEqual([{ name: 'RUNNEL_LAKE', value: 's3://runnel-lake/lake' }, { name: 'RUNNEL_S3_REGION', value: 'us-east-1' }]);
    expect(lakeProblems(podEnv(docs, b), podEnv(docs, a))).toEqual([]);
    const sa = docs.find((d) => d.kind === 'ServiceAccount')!;
    expect(sa.metadata.annotations).toEqual({ 'eks.amazonaws.com/role-arn': 'arn:aws:iam::1:role/lake' });
    expect([pod(docs, 'StatefulSet').spec.serviceAccountName, pod(docs, 'Deployment').spec.serviceAccountName]).toEqual([sa.metadata.name, sa.metadata.name]);
  });

  it('archiver.enabled=false: the release has no lake, the brokers get none (nor the S3 Secret); broker.config may name a lake written elsewhere', async () => {
    const { docs } = await render(['archiver.enabled=false', ...S3, 's3.accessKeyId=AK', 's3.secretAccessKey=SK']);
    const b = container(docs, 'StatefulSet');
    expect(lakeEntries(b)).toEqual([]);
    expect(b.envFrom).toBeUndefined();
    expect(docs.some((d) => d.kind === 'Secret' && d.metadata.name === 'rn-runnel-s3')).toBe(false);
    expect(pod(docs, 'StatefulSet').metadata.annotations['checksum/s3-secret']).toBeUndefined();
    const elsewhere = container((await render(['archiver.enabled=false', 'broker.config.lake=s3://shared-lake/runnel', 'broker.config.s3\\.region=eu-central-1'])).docs, 'StatefulSet');
    expect(brokerLake(podEnv([], elsewhere))).toMatchObject({ lake: 's3://shared-lake/runnel', s3Region: 'eu-central-1' });
  });

  it('refuses lake settings given a second way, which would let the brokers and the archiver drift apart', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['broker.config.lake=s3://other/lake'], /broker.config sets lake: the chart gives the brokers the archiver's lake/],
      [['broker.config.s3\\.endpoint=http://other:9000'], /broker.config sets s3.endpoint/],
      [['archiver.config.RUNNEL_LAKE=s3://other/lake'], /archiver.config sets RUNNEL_LAKE: use archiver.lake and s3/],
      [['broker.extraEnv[0].name=RUNNEL_S3_REGION', 'broker.extraEnv[0].value=eu-west-3'], /broker.extraEnv sets RUNNEL_S3_REGION/],
      [['archiver.extraEnv[0].name=RUNNEL_S3_ENDPOINT', 'archiver.extraEnv[0].value=http://x'], /archiver.extraEnv sets RUNNEL_S3_ENDPOINT/],
    ];
    for (const [sets, message] of cases) {
      const r = await helmTemplate(sets);
      expect(r.code, sets.join(' ')).not.toBe(0);
      expect(r.stderr, sets.join(' ')).toMatch(message);
    }
  });
});
