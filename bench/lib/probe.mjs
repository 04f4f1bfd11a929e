// Small probes the standalone bench scripts (idle-cpu.mjs, partition-burst.mjs)
// share: a process's CPU ticks and RSS from /proc, a free port, and one
// inline command to a Redis server without a client library.
import fs from 'node:fs';
import net from 'node:net';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** utime + stime of `pid`, in clock ticks. */
export const ticks = (pid) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(f[11]) + Number(f[12]);
};

export const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

export const freePort = () => new Promise((r) => { const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => r(p)); }); });

/** One inline command; resolves with the raw reply (a bulk string read whole, else one line). */
export const redisCmd = (port, line) => new Promise((resolve, reject) => {
  const s = net.connect({ host: '127.0.0.1', port }, () => s.write(`${line}\r\n`));
  let buf = '';
  s.on('data', (d) => { buf += d; if (/^\$\d+\r\n/.test(buf) ? buf.length >= Number(/^\$(\d+)/.exec(buf)[1]) + 8 : buf.endsWith('\r\n')) { s.destroy(); resolve(buf); } });
  s.on('error', reject);
});
