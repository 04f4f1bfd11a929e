// runnel_build_info: one constant series saying which Runnel and which Node.js
// a process runs, following Prometheus's *_build_info convention (value 1, the
// facts as labels), so a query can join it onto other series. Shared by the
// broker and the archiver.
import { readFileSync } from 'node:fs';
import { Gauge, type Registry } from 'prom-client';

export type BuildInfoLabel = 'version' | 'node_version' | 'platform' | 'arch';

/**
 * The version in the package.json above this module: `../../package.json`
 * from common/metrics/ in the source tree, `../../../package.json` from
 * dist/common/metrics/. "unknown" when neither is readable.
 */
export function runnelVersion(): string {
  for (const p of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(p, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'runnel' && typeof pkg.version === 'string') return pkg.version;
    } catch { /* next */ }
  }
  return 'unknown';
}

export function buildInfoLabels(): Record<BuildInfoLabel, string> {
  return { version: runnelVersion(), node_version: process.versions.node, platform: process.platform, arch: process.arch };
}

/** Registers runnel_build_info{version,node_version,platform,arch} = 1 on `registry`. */
export function registerBuildInfo(registry: Registry, labels: Record<BuildInfoLabel, string> = buildInfoLabels()): Gauge<BuildInfoLabel> {
  const g = new Gauge<BuildInfoLabel>({
    name: 'runnel_build_info',
    help: 'Runnel version and Node.js runtime of this process (value always 1)',
    labelNames: ['version', 'node_version', 'platform', 'arch'],
    registers: [registry],
  });
  g.set(labels, 1);
  return g;
}
