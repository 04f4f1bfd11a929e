// bench/bench.sh, what `npm run bench` runs (issue 32 item 6): with an older
// `node` first on PATH (a stand-in that reports major 20 and fails if anything
// runs on it) the bench runs on the pinned Node 26 of cli/node-lts.sh (its
// brokers run on the bench's own node); without the Kafka jars it stops at once
// with one line naming test/setup/install.sh; the bench's loader refuses an
// older node run by hand. Nothing is benchmarked (--print-command).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCommand, REPO_ROOT } from '../helpers/procs.js';

const launcher = path.join(REPO_ROOT, 'bench', 'bench.sh');
const nodeLts = fs.readFileSync(path.join(REPO_ROOT, 'cli', 'node-lts.sh'), 'utf8');
const pinned = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(nodeLts)?.[1] ?? '';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-bench-launcher-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A folder whose `node` reports major 20 and refuses to run anything. */
function oldNode(): string {
  const bin = path.join(dir, 'node20');
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, 'node'), [
    '#!/bin/sh',
    'if [ "$1" = -p ]; then echo 20; exit 0; fi',
    'if [ "$1" = --version ]; then echo v20.0.0; exit 0; fi',
    'echo "stand-in node 20 ran: $*" >&2; exit 97',
  ].join('\n') + '\n', { mode: 0o755 });
  return bin;
}

/** A jar folder with the names the bench looks for (empty files: nothing runs them here). */
function jars(names: string[]): string {
  const lib = fs.mkdtempSync(path.join(dir, 'lib-'));
  for (const n of names) fs.writeFileSync(path.join(lib, n), '');
  return lib;
}

const run = (args: string[], env: Record<string, string>) =>
  runCommand('bash', [launcher, ...args], { env: { ...process.env, ...env, PATH: `${oldNode()}:${process.env.PATH}` }, timeoutMs: 300_000 });

describe('npm run bench (bench/bench.sh)', () => {
  it('is what `npm run bench` runs', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.bench).toBe('bash bench/bench.sh');
  });

  it('runs the bench on the pinned Node 26 when the PATH\'s node is older', async () => {
    const lib = jars(['kafka-clients-4.1.0.jar', 'kafka-tools-4.1.0.jar', 'kafka_2.13-4.1.0.jar']);
    const r = await run(['--print-command', '--quick', '--only', 'a'], { BENCH_JAVA_LIB: lib });
    expect(r.code, r.stderr).toBe(0);
    const [node, ...rest] = r.stdout.trim().split(' ');
    expect(node).toBe(path.join(REPO_ROOT, '.cache', 'node', `node-v${pinned('RUNNEL_NODE_VERSION')}-npm-v${pinned('RUNNEL_NPM_VERSION')}`, 'bin', 'node'));
    expect(rest).toEqual(['--enable-source-maps', '--import', './bench/lib/ts-loader.mjs', 'bench/run.ts', '--quick', '--only', 'a']);
    const v = await runCommand(node!, ['-p', 'process.versions.node'], { timeoutMs: 30_000 });
    expect(v.stdout.trim().split('.')[0]).toBe(pinned('RUNNEL_NODE_MAJOR'));
  });

  it('stops at once with one line naming test/setup/install.sh when the Kafka jars are missing', async () => {
    const lib = jars(['kafka-clients-4.1.0.jar']); // the tools and broker jars absent
    const r = await run(['--quick'], { BENCH_JAVA_LIB: lib });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('the Kafka 4.x jars');
    expect(lines[0]).toContain("run 'bash test/setup/install.sh'");
  });

  it('the bench\'s loader, run by hand on a node older than 26, stops with one line naming npm run bench', async () => {
    // The loader's check, run by the pinned node with its version field made 20 (no Node 20 needed here).
    const node = path.join(REPO_ROOT, '.cache', 'node', `node-v${pinned('RUNNEL_NODE_VERSION')}-npm-v${pinned('RUNNEL_NPM_VERSION')}`, 'bin', 'node');
    const preload = path.join(dir, 'pretend-20.mjs');
    fs.writeFileSync(preload, "Object.defineProperty(process.versions, 'node', { value: '20.20.2' });\n");
    const r = await runCommand(fs.existsSync(node) ? node : process.execPath, ['--import', preload, '--import', './bench/lib/ts-loader.mjs', '-e', 'console.log("ran")'], { cwd: REPO_ROOT, timeoutMs: 30_000 });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe("bench: Node 20.20.2 is older than 26, the line Runnel runs on: run 'npm run bench' (bench/bench.sh puts Node 26 first)");
  });
});
