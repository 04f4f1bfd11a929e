// cli/node-lts.sh, the Node.js 26 (Active LTS) that ./runnel and test/run-all.sh
// run on: with an older `node` first on PATH (a stand-in that reports major 20
// and fails if anything runs on it) the pinned Node 26 and npm from .cache/node
// come first (fetched from the npm registry once, the first time), node-gyp is
// pointed at its headers, and ./runnel runs the CLI on it; a node of 26 or
// newer is left as it is; a download whose sha512 differs is refused.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCommand, REPO_ROOT } from '../helpers/procs.js';

const script = path.join(REPO_ROOT, 'cli', 'node-lts.sh');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-node-lts-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A folder whose `node` reports MAJOR and refuses to run anything. */
function fakeNode(major: number): string {
  const bin = path.join(dir, `node${major}`);
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, 'node'), [
    '#!/bin/sh',
    `if [ "$1" = -p ]; then echo ${major}; exit 0; fi`,
    `if [ "$1" = --version ]; then echo v${major}.0.0; exit 0; fi`,
    `echo "stand-in node ${major} ran: $*" >&2; exit 97`,
  ].join('\n') + '\n', { mode: 0o755 });
  return bin;
}

const pinned = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(fs.readFileSync(script, 'utf8'))?.[1] ?? '';

function sourced(bin: string, body: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}:${process.env.PATH}` };
  delete env.npm_package_config_node_gyp_nodedir;
  return runCommand('bash', ['-euo', 'pipefail', '-c', `source '${script}'\n${body}`], { env, timeoutMs: 300_000 });
}

describe('cli/node-lts.sh', () => {
  it('an older node on PATH: the pinned Node 26 and npm come first, with their headers for node-gyp; ./runnel runs on it', async () => {
    const old = fakeNode(20);
    const r = await sourced(old, `runnel_use_node_lts '${REPO_ROOT}'
command -v node; node -p process.version; npm --version; echo "$npm_package_config_node_gyp_nodedir"`);
    expect(r.code, r.stderr).toBe(0);
    const [nodePath, version, npmVersion, nodedir] = r.stdout.trim().split('\n');
    const home = path.join(REPO_ROOT, '.cache', 'node', `node-v${pinned('RUNNEL_NODE_VERSION')}-npm-v${pinned('RUNNEL_NPM_VERSION')}`);
    expect(nodePath).toBe(path.join(home, 'bin', 'node'));
    expect(version).toBe(`v${pinned('RUNNEL_NODE_VERSION')}`);
    expect(version!.startsWith(`v${pinned('RUNNEL_NODE_MAJOR')}.`)).toBe(true);
    expect(npmVersion).toBe(pinned('RUNNEL_NPM_VERSION'));
    expect(nodedir).toBe(home);
    expect(fs.existsSync(path.join(home, 'include', 'node', 'node_api.h'))).toBe(true);

    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string; engines: { node: string } };
    expect(pkg.engines.node).toBe(`>=${pinned('RUNNEL_NODE_MAJOR')}`);
    const cli = await runCommand(path.join(REPO_ROOT, 'runnel'), ['--version'], { env: { ...process.env, PATH: `${old}:${process.env.PATH}` }, timeoutMs: 300_000 });
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout.trim()).toBe(`runnel ${pkg.version}`);
  });

  it('a node of 26 or newer on PATH is used as it is', async () => {
    const current = fakeNode(27);
    const r = await sourced(current, `runnel_use_node_lts '${REPO_ROOT}'; command -v node; echo "nodedir=\${npm_package_config_node_gyp_nodedir:-}"`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual([path.join(current, 'node'), 'nodedir=']);
  });

  it('a download whose sha512 differs from the pinned one is refused', async () => {
    const file = path.join(dir, 'payload.tgz');
    fs.writeFileSync(file, 'not the pinned tarball');
    const good = crypto.createHash('sha512').update(fs.readFileSync(file)).digest('hex');
    const wrong = crypto.createHash('sha512').update('something else').digest('hex');
    const bin = fakeNode(20);
    const ok = await sourced(bin, `_runnel_fetch 'file://${file}' ${good} '${dir}/ok.tgz'`);
    expect(ok.code, ok.stderr).toBe(0);
    const bad = await sourced(bin, `_runnel_fetch 'file://${file}' ${wrong} '${dir}/bad.tgz'`);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain(`sha512 mismatch for file://${file}`);
  });
});
