// `runnel produce` / `runnel consume` next to kcat on the same broker: N keyed
// records of 100 bytes (10-byte key, 90-byte value) from a file, produced with
// acks=all, then read back from the beginning to /dev/null. Wall time of each
// command, process start included (what a user waits for), best and median of
// --runs. Starts redis-server and a `runnel broker` unless --bootstrap-server
// is given (then it uses that broker, Runnel or Kafka).
//
//   npm run build && node bench/cli-speed.mjs [--records 100000] [--partitions 4] [--runs 3] [--bootstrap-server H:P]
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, redisCmd, sleep } from './lib/probe.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const CLI = path.join(ROOT, 'dist/cli/runnel.js');
const { values: o } = parseArgs({ options: {
  records: { type: 'string', default: '100000' }, partitions: { type: 'string', default: '4' }, runs: { type: 'string', default: '3' }, 'bootstrap-server': { type: 'string' },
} });
const N = Number(o.records);
const runs = Number(o.runs);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-cli-speed-'));
const procs = [];

async function startBroker() {
  const redisPort = await freePort();
  const port = await freePort();
  procs.push(spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], { stdio: 'ignore' }));
  for (let i = 0; i < 100 && !(await redisCmd(redisPort, 'PING').then(() => true, () => false)); i++) await sleep(50);
  procs.push(spawn(process.execPath, [CLI, 'broker', '--host', '127.0.0.1', '--port', String(port), '--redis', `redis://127.0.0.1:${redisPort}`], { stdio: 'ignore', env: { ...process.env, RUNNEL_LOG_LEVEL: 'warn' } }));
  const bootstrap = `127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    if (spawnSync(process.execPath, [CLI, 'topic', 'list', '--bootstrap-server', bootstrap]).status === 0) return bootstrap;
    await sleep(100);
  }
  throw new Error('broker did not start');
}

/** Runs a command to completion with stdin from a file and stdout to /dev/null; returns seconds. */
function timed(cmd, args, input) {
  const stdin = input ? fs.openSync(input, 'r') : 'ignore';
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { stdio: [stdin, 'ignore', 'pipe'], timeout: 300_000 });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  if (input) fs.closeSync(stdin);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return s;
}

try {
  const bootstrap = o['bootstrap-server'] ?? (await startBroker());
  const file = path.join(dir, 'records.txt');
  const lines = [];
  for (let i = 0; i < N; i++) lines.push(`k${String(i).padStart(9, '0')}\t${'v'.repeat(80)}${String(i).padStart(10, '0')}\n`);
  fs.writeFileSync(file, lines.join(''));
  const results = { 'runnel produce': [], 'kcat -P': [], 'runnel consume': [], 'kcat -C': [] };
  for (let run = 0; run < runs; run++) {
    for (const tool of ['runnel', 'kcat']) {
      const topic = `speed-${tool}-${run}`;
      const c = spawnSync(process.execPath, [CLI, 'topic', 'create', topic, '--partitions', o.partitions, '--bootstrap-server', bootstrap]);
      if (c.status !== 0) throw new Error(`topic create: ${c.stderr}`);
      if (tool === 'runnel') {
        results['runnel produce'].push(timed(process.execPath, [CLI, 'produce', topic, '--parse-key', '--bootstrap-server', bootstrap], file));
        results['runnel consume'].push(timed(process.execPath, [CLI, 'consume', topic, '--from-beginning', '--max-messages', String(N), '--print-key', '--bootstrap-server', bootstrap]));
      } else {
        results['kcat -P'].push(timed('kcat', ['-b', bootstrap, '-P', '-t', topic, '-K', '\t', '-X', 'acks=all', '-z', 'none'], file));
        results['kcat -C'].push(timed('kcat', ['-b', bootstrap, '-C', '-t', topic, '-o', 'beginning', '-e', '-q', '-c', String(N), '-f', '%k\t%s\n'], null));
      }
    }
  }
  console.log(`${N} records of 100 B, ${o.partitions} partitions, ${runs} runs, wall time with process start (${os.cpus().length} CPUs)`);
  for (const [name, xs] of Object.entries(results)) {
    const sorted = [...xs].sort((a, b) => a - b);
    const med = sorted[Math.floor(sorted.length / 2)];
    console.log(`  ${name.padEnd(15)} best ${sorted[0].toFixed(2)} s (${Math.round(N / sorted[0]).toLocaleString('en')} records/s)  median ${med.toFixed(2)} s (${Math.round(N / med).toLocaleString('en')} records/s)`);
  }
} finally {
  for (const p of procs.reverse()) p.kill('SIGTERM');
  await sleep(500);
  fs.rmSync(dir, { recursive: true, force: true });
}
