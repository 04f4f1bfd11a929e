// runnel_build_info: one series of value 1 whose labels name the package.json
// version and the Node.js runtime; the broker's and the archiver's registries
// both carry it from the one implementation in common/metrics/build-info.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { buildInfoLabels, registerBuildInfo, runnelVersion } from '../../../common/metrics/build-info.js';
import { emptyStats, observeArchiver } from '../../../archiver/src/metrics.js';
import { REPO_ROOT } from '../../helpers/procs.js';

const pkgVersion = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

describe('runnel_build_info', () => {
  it('is 1 with the package.json version, the Node.js version, platform and arch as labels', async () => {
    expect(runnelVersion()).toBe(pkgVersion);
    expect(buildInfoLabels()).toEqual({ version: pkgVersion, node_version: process.versions.node, platform: process.platform, arch: process.arch });
    const r = new Registry();
    registerBuildInfo(r);
    const text = await r.metrics();
    expect(text).toContain('# TYPE runnel_build_info gauge');
    expect(text).toContain(`runnel_build_info{version="${pkgVersion}",node_version="${process.versions.node}",platform="${process.platform}",arch="${process.arch}"} 1\n`);
    expect(text.split('\n').filter((l) => l.startsWith('runnel_build_info{'))).toHaveLength(1);
  });

  it('is on the archiver\'s registry', async () => {
    const r = new Registry();
    observeArchiver(r, { lag: () => [], stats: emptyStats() });
    expect(await r.metrics()).toMatch(new RegExp(`^runnel_build_info\\{version="${pkgVersion.replace(/\./g, '\\.')}",node_version="[^"]+",platform="[^"]+",arch="[^"]+"\\} 1$`, 'm'));
  });
});
