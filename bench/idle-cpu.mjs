// Idle CPU of one broker and its (embedded) Redis with many partitions: what
// leadership upkeep (lease renewals, holder reads) costs when nobody produces.
// For each count: start `runnel broker` on a fresh data folder, create one
// topic with that many partitions (plus the 50 coordinator slots), wait until
// leadership settles, then measure 20 s. With --brokers N (N > 1), N brokers
// share one redis-server (appendonly yes) and each leads its share.
//
//   npm run build && node bench/idle-cpu.mjs 0 1000 4000
//   node bench/idle-cpu.mjs --brokers 3 4000
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import kafkajs from 'kafkajs';
import { sleep, ticks, freePort, redisCmd } from './lib/probe.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const bi = args.indexOf('--brokers');
const brokers = bi >= 0 ? Number(args.splice(bi, 2)[1]) : 1;
const counts = args.map(Number);

for (const n of counts.length ? counts : [0, 1000, 4000]) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-idle-'));
  const ports = await Promise.all(Array.from({ length: brokers }, () => freePort()));
  let redis = null;
  let redisPort = 0;
  if (brokers > 1) {
    redisPort = await freePort();
    redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', ''], { stdio: 'ignore' });
    for (let i = 0; i < 100; i++) {
      if (await redisCmd(redisPort, 'PING').then(() => true, () => false)) break;
      await sleep(50);
    }
  }
  const procs = ports.map((port, i) => spawn(process.execPath, [
    '--initial-old-space-size=128', path.join(ROOT, 'dist/cli/runnel.js'), 'broker', '--port', String(port), '--node-id', String(i + 1),
    ...(redis ? ['--redis', `redis://127.0.0.1:${redisPort}`, '--data-dir', path.join(dir, `b${i + 1}`)] : ['--data-dir', dir]),
  ], { stdio: 'ignore', env: { ...process.env, RUNNEL_V8_REEXEC: '0', RUNNEL_LOG_LEVEL: 'warn' } }));
  try {
    const admin = new kafkajs.Kafka({ brokers: [`127.0.0.1:${ports[0]}`], logLevel: kafkajs.logLevel.NOTHING, retry: { retries: 30 } }).admin();
    await admin.connect();
    if (n > 0) await admin.createTopics({ topics: [{ topic: 'idle', numPartitions: n }], timeout: 120_000 });
    await admin.disconnect();
    await sleep(brokers > 1 ? 15_000 : 6_000); // leadership settles (handoffs run a few per tick); the first renewals run
    if (!redis) redisPort = Number(/:(\d+)\/?\s*$/.exec(fs.readFileSync(path.join(dir, 'redis.url'), 'utf8'))[1]);
    const redisPid = Number(/process_id:(\d+)/.exec(await redisCmd(redisPort, 'INFO server'))[1]);
    await redisCmd(redisPort, 'CONFIG RESETSTAT');
    const r0 = ticks(redisPid);
    const b0 = procs.map((p) => ticks(p.pid));
    const t0 = Date.now();
    await sleep(20_000);
    const s = (Date.now() - t0) / 1000;
    const pct = (d) => `${(d / s).toFixed(1)}%`; // ticks are 1/100 s: ticks per second = percent of a core
    const stats = await redisCmd(redisPort, 'INFO commandstats');
    const calls = [...stats.matchAll(/calls=(\d+)/g)].reduce((a, m) => a + Number(m[1]), 0);
    const each = procs.map((p, i) => pct(ticks(p.pid) - b0[i])).join(' / ');
    console.log(`${n} partitions + 50 coordinator slots, ${brokers} broker${brokers > 1 ? 's' : ''}, idle ${s.toFixed(0)} s: broker ${each} of a core, redis ${pct(ticks(redisPid) - r0)}, ${Math.round(calls / s)} redis commands/s (script-internal calls included)`);
  } finally {
    for (const p of procs) p.kill('SIGTERM');
    await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null ? r() : p.once('exit', r)))));
    redis?.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
