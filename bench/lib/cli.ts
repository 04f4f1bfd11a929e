// Workload m: the command-line clients, `runnel produce` / `runnel consume`
// next to kcat (librdkafka), on the same broker: Kafka and Runnel (raw Redis
// has no Kafka listener). The client is the subject here, not the broker.
//
// Per run, a file of `counts.cli` keyed records of 100 B (a 10-byte key, a tab,
// a 90-byte value, a newline) is produced
//   - by `runnel produce --parse-key` to a fresh 4-partition topic R, and
//   - by `kcat -P -K '\t'` to a fresh 4-partition topic K,
// both acks=all, no compression, batches of up to 1,000,000 bytes per
// partition, linger 5 ms (runnel produce's defaults; given to kcat explicitly,
// they are librdkafka's defaults too). Then R is read back from the beginning
//   - by `runnel consume --from-beginning --max-messages N --print-key`, and
//   - by `kcat -C -o beginning -e -c N -f '%k\t%s\n'`,
// both into a file: the same stored batches for both readers, and the same
// "key<TAB>value" lines, so each output must be exactly as long as the input
// and hold N lines (that checks runnel produce too); K must hold N records
// (ListOffsets). Which tool goes first alternates from run to run.
//
// Measured per command: wall time from spawn to exit, process start included
// (what a user waits for), as records/s; and the client's CPU, user + sys of the
// process and its threads (this process's cutime + cstime across the command:
// the bench reaps no other child meanwhile), as µs per record. The broker's
// (and Runnel's Redis's) CPU per record is kept in the JSON.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import kafkajs from 'kafkajs';
import { RUNNEL_CLI } from '../../test/helpers/runnel.js';
import { processTreeCpuSeconds } from './cpu.js';
import { fmt } from './stats.js';
import { SYSTEM_LABEL, type System, type SystemName } from './systems.js';
import { errText, topicName, type Counts, type Ctx, type Metrics, type Row } from './workloads.js';

export const CLI_PARTITIONS = 4;
const KEY_BYTES = 10;
const VALUE_BYTES = 90;
/** Producer settings both tools run with (runnel produce's defaults). */
export const CLI_PRODUCE = { acks: 'all', 'batch.size': 1_000_000, 'linger.ms': 5, compression: 'none' };
const COMMAND_TIMEOUT_MS = 300_000;

type Tool = 'runnel' | 'kcat';
type Step = 'Produce' | 'Consume';

/** CPU seconds of the children this process has waited for (cutime + cstime), Linux /proc. */
function reapedChildrenCpuSeconds(): number {
  const s = fs.readFileSync('/proc/self/stat', 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) / 100; // USER_HZ
}

/** The input: N lines "k<9 digits>\t<80 x v><10 digits>\n", 100 bytes of key and value per record. */
function writeInput(file: string, n: number): number {
  const fd = fs.openSync(file, 'w');
  try {
    const chunk: string[] = [];
    for (let i = 0; i < n; i++) {
      chunk.push(`k${String(i).padStart(KEY_BYTES - 1, '0')}\t${'v'.repeat(VALUE_BYTES - 10)}${String(i).padStart(10, '0')}\n`);
      if (chunk.length === 10_000 || i === n - 1) fs.writeSync(fd, chunk.splice(0).join(''));
    }
  } finally {
    fs.closeSync(fd);
  }
  return fs.statSync(file).size;
}

interface Timed {
  wallS: number;
  clientCpuS: number;
  brokerCpuS: number | null;
  redisCpuS: number | null;
}

/** Runs one client command to completion, stdin from `input` (or none), stdout into `output` (or /dev/null). */
async function timed(sys: System, cmd: string, args: string[], input: string | null, output: string | null): Promise<Timed> {
  const inFd = input ? fs.openSync(input, 'r') : 'ignore';
  const outFd = fs.openSync(output ?? '/dev/null', 'w');
  const pids = sys.pids();
  const b0 = pids.broker ? processTreeCpuSeconds(pids.broker) : null;
  const r0 = pids.redis ? processTreeCpuSeconds(pids.redis) : null;
  const c0 = reapedChildrenCpuSeconds();
  const t0 = process.hrtime.bigint();
  try {
    const { code, signal, stderr } = await new Promise<{ code: number | null; signal: string | null; stderr: string }>((resolve, reject) => {
      const child = spawn(cmd, args, { stdio: [inFd, outFd, 'pipe'] });
      const err: Buffer[] = [];
      child.stderr!.on('data', (b: Buffer) => err.push(b));
      const timer = setTimeout(() => child.kill('SIGKILL'), COMMAND_TIMEOUT_MS);
      child.once('error', reject);
      child.once('close', (c, s) => {
        clearTimeout(timer);
        resolve({ code: c, signal: s, stderr: Buffer.concat(err).toString('utf8') });
      });
    });
    const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
    const clientCpuS = reapedChildrenCpuSeconds() - c0;
    const b1 = pids.broker ? processTreeCpuSeconds(pids.broker) : null;
    const r1 = pids.redis ? processTreeCpuSeconds(pids.redis) : null;
    if (code !== 0) throw new Error(`${path.basename(cmd)} ${args.join(' ')} exited ${code ?? signal}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
    return { wallS, clientCpuS, brokerCpuS: b0 !== null && b1 !== null ? b1 - b0 : null, redisCpuS: r0 !== null && r1 !== null ? r1 - r0 : null };
  } finally {
    if (typeof inFd === 'number') fs.closeSync(inFd);
    fs.closeSync(outFd);
  }
}

function produceCommand(tool: Tool, bootstrap: string, topic: string): [string, string[]] {
  if (tool === 'runnel') return [process.execPath, [RUNNEL_CLI, 'produce', topic, '--parse-key', '--bootstrap-server', bootstrap]];
  const x = Object.entries(CLI_PRODUCE).filter(([k]) => k !== 'compression').flatMap(([k, v]) => ['-X', `${k}=${v}`]);
  return ['kcat', ['-b', bootstrap, '-P', '-t', topic, '-K', '\t', '-z', CLI_PRODUCE.compression, ...x]];
}

function consumeCommand(tool: Tool, bootstrap: string, topic: string, n: number): [string, string[]] {
  // --timeout-ms: a topic with fewer records ends the command instead of hanging (the output check then fails).
  if (tool === 'runnel') return [process.execPath, [RUNNEL_CLI, 'consume', topic, '--from-beginning', '--max-messages', String(n), '--timeout-ms', '30000', '--print-key', '--bootstrap-server', bootstrap]];
  return ['kcat', ['-b', bootstrap, '-C', '-t', topic, '-o', 'beginning', '-e', '-q', '-c', String(n), '-f', '%k\t%s\n']];
}

function countLines(file: string): number {
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.allocUnsafe(1 << 20);
  let lines = 0;
  try {
    for (let got; (got = fs.readSync(fd, buf, 0, buf.length, null)) > 0; ) {
      for (let i = buf.indexOf(10); i >= 0 && i < got; i = buf.indexOf(10, i + 1)) lines++;
    }
  } finally {
    fs.closeSync(fd);
  }
  return lines;
}

async function recordCount(bootstrap: string, topic: string): Promise<number> {
  const admin = new kafkajs.Kafka({ clientId: 'runnel-bench-cli', brokers: [bootstrap], logLevel: kafkajs.logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets.reduce((a, o) => a + Number(o.high) - Number(o.low), 0);
  } finally {
    await admin.disconnect();
  }
}

function record(m: Metrics, tool: Tool, step: Step, t: Timed, n: number): void {
  const p = `${tool}${step}`;
  const us = (s: number | null): number | null => (s === null ? null : (s * 1e6) / n);
  Object.assign(m, {
    [`${p}RecordsPerSec`]: n / t.wallS,
    [`${p}Sec`]: t.wallS,
    [`${p}CpuUsPerRecord`]: us(t.clientCpuS),
    [`${p}Cores`]: t.clientCpuS / t.wallS,
    [`${p}BrokerCpuUsPerRecord`]: us(t.brokerCpuS),
    [`${p}RedisCpuUsPerRecord`]: us(t.redisCpuS),
  });
}

export async function runCli(sys: System, ctx: Ctx): Promise<Row> {
  const row: Row = { workload: 'm-cli', system: sys.name, run: ctx.run, metrics: {}, notes: [] };
  const n = ctx.counts.cli;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-bench-cli-'));
  const topics: Record<Tool, string> = { runnel: topicName('m-runnel', ctx.run), kcat: topicName('m-kcat', ctx.run) };
  const order: Tool[] = ctx.run % 2 ? ['runnel', 'kcat'] : ['kcat', 'runnel'];
  try {
    const file = path.join(dir, 'records.txt');
    const inputBytes = writeInput(file, n);
    for (const tool of order) await sys.createTopic(topics[tool], CLI_PARTITIONS);
    for (const tool of order) {
      const [cmd, args] = produceCommand(tool, sys.bootstrap, topics[tool]);
      record(row.metrics, tool, 'Produce', await timed(sys, cmd, args, file, null), n);
    }
    const stored = await recordCount(sys.bootstrap, topics.kcat);
    if (stored !== n) throw new Error(`kcat -P stored ${stored} of ${n} records`);
    for (const tool of order) {
      const out = path.join(dir, `${tool}.out`);
      const [cmd, args] = consumeCommand(tool, sys.bootstrap, topics.runnel, n);
      record(row.metrics, tool, 'Consume', await timed(sys, cmd, args, null, out), n);
      const [bytes, lines] = [fs.statSync(out).size, countLines(out)];
      if (bytes !== inputBytes || lines !== n) throw new Error(`${tool} consume wrote ${lines} lines, ${bytes} bytes; produced were ${n} lines, ${inputBytes} bytes`);
      fs.rmSync(out);
    }
    const m = row.metrics;
    Object.assign(m, { records: n, recordBytes: KEY_BYTES + VALUE_BYTES, recordsPerSec: m.runnelProduceRecordsPerSec ?? null });
  } catch (e) {
    row.error = errText(e);
  } finally {
    for (const t of Object.values(topics)) await sys.deleteTopic(t, CLI_PARTITIONS).catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return row;
}

export function cliSummary(m: Metrics): string {
  const r = (a: string, b: string): string => fmt(m[a] && m[b] ? m[a]! / m[b]! : null, 2);
  const one = (step: Step): string =>
    `${step.toLowerCase()} runnel ${fmt(m[`runnel${step}RecordsPerSec`], 0)} / kcat ${fmt(m[`kcat${step}RecordsPerSec`], 0)} records/s (${r(`runnel${step}RecordsPerSec`, `kcat${step}RecordsPerSec`)}x), ` +
    `CPU ${fmt(m[`runnel${step}CpuUsPerRecord`], 2)} / ${fmt(m[`kcat${step}CpuUsPerRecord`], 2)} µs/record`;
  return `${one('Produce')}; ${one('Consume')}`;
}

/** The command-line clients section of the results Markdown ('' when workload m did not run). */
export function cliMarkdown(medians: Partial<Record<SystemName, Metrics>> | undefined, counts: Counts): string {
  if (!medians || !Object.keys(medians).length) return '';
  const g = (s: SystemName, k: string): number | null => medians[s]?.[k] ?? null;
  const ratio = (a: number | null, b: number | null): string => (a !== null && b !== null && a > 0 && b > 0 ? `${(a / b).toFixed(2)}×` : '—');
  const L = [
    `**Command-line clients** (m): \`runnel produce\` / \`runnel consume\` next to kcat (librdkafka), ${fmt(counts.cli, 0)} keyed records of ${KEY_BYTES + VALUE_BYTES} B ` +
      `(${KEY_BYTES} B key, ${VALUE_BYTES} B value) from a file, ${CLI_PARTITIONS} partitions, acks=all, batch.size=${CLI_PRODUCE['batch.size']}, linger.ms=${CLI_PRODUCE['linger.ms']}, no compression; ` +
      'both consumers read, from the beginning into a file, the topic `runnel produce` wrote. records/s over the wall time from spawn to exit (process start included); ' +
      'CPU = user + sys of the client process per record. Median of the runs; ratios are runnel / kcat. See bench/README.md, Command-line clients.',
    '',
    '| broker | step | runnel records/s | kcat records/s | runnel / kcat | runnel CPU µs/record | kcat CPU µs/record | runnel / kcat |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const s of (['kafka', 'runnel'] as SystemName[]).filter((x) => medians[x])) {
    for (const [step, label] of [
      ['Produce', '`runnel produce` vs `kcat -P`'],
      ['Consume', '`runnel consume` vs `kcat -C`'],
    ] as const) {
      const [rr, kr] = [g(s, `runnel${step}RecordsPerSec`), g(s, `kcat${step}RecordsPerSec`)];
      const [rc, kc] = [g(s, `runnel${step}CpuUsPerRecord`), g(s, `kcat${step}CpuUsPerRecord`)];
      L.push(`| ${SYSTEM_LABEL[s]} | ${label} | ${fmt(rr, 0)} | ${fmt(kr, 0)} | ${ratio(rr, kr)} | ${fmt(rc, 2)} | ${fmt(kc, 2)} | ${ratio(rc, kc)} |`);
    }
  }
  return L.join('\n');
}
