// What an AOF rewrite costs Redis with rdbcompression yes (the server's default)
// and no (docs/durability.md "Redis settings"), and with rdbchecksum no on top (the RDB
// preamble's CRC64), for a log of ~850 KB stream entries (workload a's stored
// batch size). Two payloads: ProducerPerformance's (random letters
// A-Z, an uncompressed batch), JSON events (compressible text) and random bytes
// (a batch a producer compressed).
// The rewrite runs in a forked child on its own, so its wall time is its CPU.
//
//   node bench/aof-rewrite.mjs [--mb 500] [--repeat 3] [--server redis-server|valkey-server] [--payloads letters,json,random]
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';

const { values } = parseArgs({ options: { mb: { type: 'string', default: '500' }, repeat: { type: 'string', default: '3' }, server: { type: 'string', default: 'redis-server' }, payloads: { type: 'string', default: 'letters,json,random' } } });
const ENTRY = 850_000;
const entries = Math.ceil((Number(values.mb) * 1e6) / ENTRY);
const repeat = Number(values.repeat);

const freePort = () => new Promise((res) => { const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => res(p)); }); });
const listening = (port) => new Promise((res) => { const c = net.connect(port, '127.0.0.1'); c.once('connect', () => { c.destroy(); res(true); }); c.once('error', () => res(false)); });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const dirBytes = (d) => fs.readdirSync(d).reduce((n, f) => n + fs.statSync(path.join(d, f)).size, 0);

function payload(kind) {
  if (kind.startsWith('random')) return randomBytes(ENTRY);
  if (kind.startsWith('JSON')) {
    let t = '';
    for (let i = 0; t.length < ENTRY; i++) t += JSON.stringify({ id: i, user: `user-${(i * 7919) % 100000}`, event: ['view', 'click', 'buy'][i % 3], ts: 1764660000000 + i * 13, amount: ((i * 31) % 10000) / 100 });
    return Buffer.from(t.slice(0, ENTRY));
  }
  const b = Buffer.alloc(ENTRY);
  for (let i = 0; i < ENTRY; i++) b[i] = 65 + Math.floor(Math.random() * 26);
  return b;
}

async function once(kind, settings) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aof-rewrite-'));
  const port = await freePort();
  const proc = spawn(values.server, ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', '', '--auto-aof-rewrite-percentage', '0', ...settings.flatMap(([k, v]) => [`--${k}`, v])], { stdio: 'ignore' });
  try {
    for (let i = 0; !(await listening(port)); i++) { if (i > 200) throw new Error('redis-server did not start'); await sleep(25); }
    const r = new Redis({ port, host: '127.0.0.1' });
    const b = payload(kind);
    for (let i = 0; i < entries; i++) await r.xadd('s', '*', 'b', b);
    const t0 = process.hrtime.bigint();
    await r.bgrewriteaof();
    for (;;) {
      const info = await r.info('persistence');
      if (/aof_rewrite_in_progress:0/.test(info) && /aof_rewrite_scheduled:0/.test(info) && /aof_last_bgrewrite_status:ok/.test(info)) break;
      await sleep(10);
    }
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const bytes = dirBytes(path.join(dir, 'appendonlydir'));
    r.disconnect();
    return { ms, bytes };
  } finally {
    proc.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const SETTINGS = [
  [['rdbcompression', 'yes']],
  [['rdbcompression', 'no']],
  [['rdbcompression', 'no'], ['rdbchecksum', 'no']],
];
const PAYLOADS = { letters: 'letters A-Z (uncompressed batch)', json: 'JSON events (uncompressed batch)', random: 'random bytes (compressed batch)' };
console.log(`AOF rewrite of ${entries} x ${ENTRY} B stream entries (${((entries * ENTRY) / 1e6).toFixed(0)} MB), median of ${repeat}, ${values.server} on ${os.availableParallelism()} cores\n`);
console.log('| payload | settings | rewrite ms | MB/s | AOF MB after |');
console.log('|---|---|---:|---:|---:|');
for (const kind of values.payloads.split(',').map((p) => PAYLOADS[p])) {
  for (const settings of SETTINGS) {
    const runs = [];
    for (let i = 0; i < repeat; i++) runs.push(await once(kind, settings));
    const ms = median(runs.map((x) => x.ms));
    const mb = median(runs.map((x) => x.bytes)) / 1e6;
    console.log(`| ${kind} | ${settings.map(([k, v]) => `${k} ${v}`).join(', ')} | ${ms.toFixed(0)} | ${((entries * ENTRY) / 1e6 / (ms / 1000)).toFixed(0)} | ${mb.toFixed(0)} |`);
  }
}
