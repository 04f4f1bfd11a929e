// Idle CPU of one broker and its (embedded) Redis with many partitions: what
// leadership upkeep (lease renewals, holder reads) costs when nobody produces.
// For each count: start `runnel broker` on a fresh data folder, create one
// topic with that many partitions (plus the 50 coordinator slots every broker
// leads), wait until leadership settles, then measure 20 s.
//
//   npm run build && node bench/idle-cpu.mjs 0 1000 4000
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import kafkajs from 'kafkajs';

const ROOT = path.resolve(import.meta.dirname, '..');
const counts = process.argv.slice(2).map(Number);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const ticks = (pid) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(f[11]) + Number(f[12]);
};
const freePort = () => new Promise((r) => { const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => r(p)); }); });
const redisCmd = (port, line) => new Promise((resolve, reject) => {
  const s = net.connect({ host: '127.0.0.1', port }, () => s.write(`${line}\r\n`));
  let buf = '';
  s.on('data', (d) => { buf += d; if (/^\$\d+\r\n/.test(buf) ? buf.length >= Number(/^\$(\d+)/.exec(buf)[1]) + 8 : buf.endsWith('\r\n')) { s.destroy(); resolve(buf); } });
  s.on('error', reject);
});

for (const n of counts.length ? counts : [0, 1000, 4000]) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-idle-'));
  const port = await freePort();
  const broker = spawn(process.execPath, ['--initial-old-space-size=128', path.join(ROOT, 'dist/cli/runnel.js'), 'broker', '--data-dir', dir, '--port', String(port)], {
    stdio: 'ignore', env: { ...process.env, RUNNEL_V8_REEXEC: '0', RUNNEL_LOG_LEVEL: 'warn' },
  });
  try {
    const admin = new kafkajs.Kafka({ brokers: [`127.0.0.1:${port}`], logLevel: kafkajs.logLevel.NOTHING, retry: { retries: 30 } }).admin();
    await admin.connect();
    if (n > 0) await admin.createTopics({ topics: [{ topic: 'idle', numPartitions: n }], timeout: 120_000 });
    await admin.disconnect();
    await sleep(6_000); // leadership settles; the first renewals run
    const redisPort = Number(/:(\d+)\/?\s*$/.exec(fs.readFileSync(path.join(dir, 'redis.url'), 'utf8'))[1]);
    const redisPid = Number(/process_id:(\d+)/.exec(await redisCmd(redisPort, 'INFO server'))[1]);
    await redisCmd(redisPort, 'CONFIG RESETSTAT');
    const r0 = ticks(redisPid);
    const b0 = ticks(broker.pid);
    const t0 = Date.now();
    await sleep(20_000);
    const s = (Date.now() - t0) / 1000;
    const pct = (d) => `${(d / s).toFixed(1)}%`; // ticks are 1/100 s: ticks per second = percent of a core
    const stats = await redisCmd(redisPort, 'INFO commandstats');
    const calls = [...stats.matchAll(/calls=(\d+)/g)].reduce((a, m) => a + Number(m[1]), 0);
    console.log(`${n} partitions + 50 coordinator slots, idle ${s.toFixed(0)} s: broker ${pct(ticks(broker.pid) - b0)} of a core, redis ${pct(ticks(redisPid) - r0)}, ${Math.round(calls / s)} redis commands/s (script-internal calls included)`);
  } finally {
    broker.kill('SIGTERM');
    await new Promise((r) => broker.once('exit', r));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
