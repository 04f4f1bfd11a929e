// What one broker can hold: a burst of CreateTopics, then idle, then (with
// --restart) a SIGKILL and restart of the broker. One broker on its own
// redis-server (appendonly yes, like the embedded one). A probe produces one
// record every 200 ms to an unrelated one-partition topic (KafkaJS, no
// retries) throughout, and reports its latency and errors per phase:
//   burst    from the CreateTopics until the broker holds every partition
//   idle     20 s once everything is held: broker CPU % of a core, RSS, Redis CPU
//   restart  (--restart) from the SIGKILL until the new process holds everything
// "Held" is read from the broker's own 'leadership changed' log lines.
//
//   npm run build && node bench/partition-burst.mjs --bursts 3 10000 5000 2000
//   node bench/partition-burst.mjs --restart --bursts 3 10000
// Each count is the partitions per CreateTopics; --bursts B of them at once.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import kafkajs from 'kafkajs';
import { sleep, ticks, rssMiB, freePort, redisCmd } from './lib/probe.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const flag = (name) => { const i = args.indexOf(name); if (i < 0) return false; args.splice(i, 1); return true; };
const opt = (name, dflt) => { const i = args.indexOf(name); return i < 0 ? dflt : Number(args.splice(i, 2)[1]); };
const restart = flag('--restart');
const bursts = opt('--bursts', 3);
const idleS = opt('--idle', 20);
const extra = []; // --set k=v passed to the broker
for (let i = args.indexOf('--set'); i >= 0; i = args.indexOf('--set')) extra.push('--set', args.splice(i, 2)[1]);
const counts = args.map(Number);
const quiet = { logLevel: kafkajs.logLevel.NOTHING };

/** The broker process, with the `held` count of its last 'leadership changed' line and its warn lines counted. */
function startBroker(port, redisPort, dir) {
  const proc = spawn(process.execPath, [
    '--initial-old-space-size=128', path.join(ROOT, 'dist/cli/runnel.js'), 'broker', '--port', String(port), '--node-id', '1',
    '--redis', `redis://127.0.0.1:${redisPort}`, '--data-dir', dir,
    '--set', 'cluster.max.partitions=10000000', ...extra,
  ], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, RUNNEL_V8_REEXEC: '0', RUNNEL_LOG_LEVEL: 'info' } });
  const b = { proc, held: 0, warns: new Map() };
  readline.createInterface({ input: proc.stderr }).on('line', (line) => {
    let j; try { j = JSON.parse(line); } catch { return; }
    if (j.msg === 'leadership changed' && typeof j.held === 'number') b.held = j.held;
    if (j.level === 'warn' || j.level === 'error') b.warns.set(j.msg, (b.warns.get(j.msg) ?? 0) + 1);
  });
  return b;
}

/** Produces one record every 200 ms to `probe` (no retries); each phase reads and resets the samples. */
async function startProbe(bootstrap) {
  const producer = new kafkajs.Kafka({ brokers: [bootstrap], ...quiet, retry: { retries: 0 }, requestTimeout: 30_000 }).producer({ retry: { retries: 0 } });
  await producer.connect();
  let lat = [];
  let errors = new Map();
  let on = true;
  const loop = (async () => {
    while (on) {
      const t = Date.now();
      try { await producer.send({ topic: 'probe', acks: 1, messages: [{ value: 'x' }] }); lat.push(Date.now() - t); } catch (e) {
        const c = e?.cause ?? e?.originalError ?? e; const k = c?.type ?? c?.name ?? String(c);
        errors.set(k, (errors.get(k) ?? 0) + 1);
        lat.push(Date.now() - t);
      }
      await sleep(Math.max(0, 200 - (Date.now() - t)));
    }
  })();
  return {
    take() {
      const s = [...lat].sort((a, b) => a - b);
      const q = (p) => s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN;
      const out = `probe ${s.length} produces p50 ${q(0.5)} ms p99 ${q(0.99)} ms max ${s.at(-1) ?? NaN} ms, errors ${errors.size ? [...errors].map(([k, v]) => `${k}x${v}`).join(' ') : 'none'}`;
      lat = []; errors = new Map();
      return out;
    },
    async stop() { on = false; await loop; await producer.disconnect().catch(() => undefined); },
  };
}

async function waitHeld(b, want, limitMs) {
  const t0 = Date.now();
  let peakRss = 0;
  while (b.held < want && Date.now() - t0 < limitMs) {
    try { peakRss = Math.max(peakRss, rssMiB(b.proc.pid)); } catch { /* exited */ }
    await sleep(100);
  }
  return { ms: Date.now() - t0, held: b.held, peakRss };
}

const warnLine = (b) => `broker warnings: ${b.warns.size ? [...b.warns].map(([k, v]) => `'${k}' x${v}`).join(', ') : 'none'}`;

for (const per of counts.length ? counts : [10000]) {
  const total = per * bursts;
  const want = total + 1 + 50; // the bursts, the probe topic, the coordinator slots
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-burst-'));
  const [port, redisPort] = [await freePort(), await freePort()];
  const redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', ''], { stdio: 'ignore' });
  for (let i = 0; i < 100 && !(await redisCmd(redisPort, 'PING').then(() => true, () => false)); i++) await sleep(50);
  let b = startBroker(port, redisPort, path.join(dir, 'b1'));
  let probe = null;
  const bootstrap = `127.0.0.1:${port}`;
  try {
    const admin = new kafkajs.Kafka({ brokers: [bootstrap], ...quiet, retry: { retries: 30 } }).admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'probe', numPartitions: 1 }] });
    probe = await startProbe(bootstrap);
    await sleep(2000);
    console.log(`${bursts} x ${per} partitions (${want} units): before  ${probe.take()}`);
    // The burst: B CreateTopics at once, as B clients would send them (no waiting for leaders).
    const t0 = Date.now();
    await Promise.all(Array.from({ length: bursts }, async (_, i) => {
      const a = new kafkajs.Kafka({ brokers: [bootstrap], ...quiet, requestTimeout: 120_000 }).admin();
      await a.connect();
      await a.createTopics({ topics: [{ topic: `burst-${i}`, numPartitions: per }], waitForLeaders: false, timeout: 120_000 });
      await a.disconnect();
    }));
    const created = Date.now() - t0;
    const w = await waitHeld(b, want, 300_000);
    console.log(`  burst    created in ${created} ms, held ${w.held}/${want} after ${Date.now() - t0} ms, peak RSS ${w.peakRss.toFixed(0)} MiB; ${probe.take()}; ${warnLine(b)}`);
    b.warns.clear();
    await admin.disconnect();
    await sleep(3000); // the first renewals of the last acquisitions
    probe.take();
    const redisPid = Number(/process_id:(\d+)/.exec(await redisCmd(redisPort, 'INFO server'))[1]);
    const r0 = ticks(redisPid);
    const b0 = ticks(b.proc.pid);
    const i0 = Date.now();
    await sleep(idleS * 1000);
    const s = (Date.now() - i0) / 1000;
    const pct = (d) => `${(d / s).toFixed(1)}%`;
    console.log(`  idle     ${s.toFixed(0)} s: broker ${pct(ticks(b.proc.pid) - b0)} of a core, RSS ${rssMiB(b.proc.pid).toFixed(0)} MiB, redis ${pct(ticks(redisPid) - r0)}; ${probe.take()}; ${warnLine(b)}`);
    if (restart) {
      b.warns.clear();
      const k0 = Date.now();
      b.proc.kill('SIGKILL');
      await new Promise((r) => b.proc.once('exit', r));
      b = startBroker(port, redisPort, path.join(dir, 'b1'));
      const wr = await waitHeld(b, want, 300_000);
      console.log(`  restart  held ${wr.held}/${want} ${Date.now() - k0} ms after SIGKILL, peak RSS ${wr.peakRss.toFixed(0)} MiB; ${probe.take()}; ${warnLine(b)}`);
      const c0 = ticks(b.proc.pid);
      const j0 = Date.now();
      await sleep(10_000);
      const s2 = (Date.now() - j0) / 1000;
      console.log(`  after    ${s2.toFixed(0)} s: broker ${((ticks(b.proc.pid) - c0) / s2).toFixed(1)}% of a core, RSS ${rssMiB(b.proc.pid).toFixed(0)} MiB; ${probe.take()}`);
    }
  } finally {
    await probe?.stop();
    b.proc.kill('SIGTERM');
    await new Promise((r) => (b.proc.exitCode !== null || b.proc.signalCode !== null ? r() : b.proc.once('exit', r)));
    redis.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
