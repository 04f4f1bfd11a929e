// Runnel benchmark suite: Runnel vs Apache Kafka vs the raw-Redis ceiling.
//
//   npm run bench                 full run: 3 runs per workload (median), profile, archiver hook, README update
//   npm run bench -- --quick      1 short run of every workload; fails if a workload produced no number
//
// Options: --runs N, --only a,c,f,i,j,k,l,m,n,o (workload letters; i = compaction; j = transactions; k = TLS and SASL_SSL; l = tiered storage; m = runnel produce/consume vs kcat; n = produce and consume at once; o = OMB 1-topic-16-partitions-1kb rate steps; `cluster` = the cluster-scale family),
//          --tail-cache-bytes N (Runnel's log.tail.cache.bytes; 0 = off),
//          --systems kafka,runnel,raw, --b-producers N, --profile / --no-profile, --no-archiver,
//          --no-readme, --no-cluster, --cluster-primaries 1,2,3, --cluster-acks 1,all,
//          --cluster-replicas / --no-cluster-replicas.
//          --report <results.json> re-renders the tables/charts/README of a finished run.
// See bench/README.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT, runCommand } from '../test/helpers/procs.js';
import { machineInfo, softwareInfo } from './lib/machine.js';
import { runClusterScale, type Acks } from './lib/cluster-scale.js';
import { profileRunnel, profileRunnelConsume, type ProfileResult } from './lib/profile.js';
import { runCompaction } from './lib/compaction.js';
import { runTransactions } from './lib/transactions.js';
import { runSecure, secureSummary } from './lib/secure.js';
import { runTiered, stopTiered, tieredSummary } from './lib/tiered.js';
import { cliSummary, runCli } from './lib/cli.js';
import { ombSummary, runOmb } from './lib/omb.js';
import { groupsSummary, maxApiVersion, runGroups } from './lib/groups.js';
import { makeSecureMaterial, type SecureMaterial } from './lib/secure-setup.js';
import { clusterSection, computeMedians, SYSTEM_ORDER, writeOutputs, markdown, type ArchiverResult, type BenchResult } from './lib/report.js';
import { fmt } from './lib/stats.js';
import { SYSTEM_LABEL, startKafkaSystem, startRawSystem, startRunnelSystem, type System, type SystemName } from './lib/systems.js';
import {
  ensureBenchJava,
  errText,
  FULL,
  QUICK,
  runAckLatency,
  runEndToEnd,
  runProduce,
  runTail,
  warmUp,
  WORKLOADS,
  type Ctx,
  type Row,
  type WorkloadId,
} from './lib/workloads.js';

interface Args {
  quick: boolean;
  runs: number;
  only: Set<string> | null;
  systems: SystemName[];
  profile: boolean;
  archiver: boolean;
  readme: boolean;
  bProducers: number | null;
  /** The cluster-scale family: off with --no-cluster or an --only without `cluster`. */
  cluster: boolean;
  clusterPrimaries: number[] | null;
  clusterAcks: Acks[] | null;
  clusterReplicas: boolean | null;
  /** Runnel's log.tail.cache.bytes (null: the broker's default); 0 turns the tail cache off (the before/after of workload n). */
  tailCacheBytes: number | null;
}

/** Full mode: 1, 2 and 3 primaries, acks=1 and acks=all, and acks=all with a replica per primary. Quick (the smoke run): 3 primaries, acks=1. */
const CLUSTER_DEFAULTS = {
  full: { primaries: [1, 2, 3], acks: ['1', 'all'] as Acks[], replicas: true },
  quick: { primaries: [3], acks: ['1'] as Acks[], replicas: false },
};

function parseArgs(argv: string[]): Args {
  const a: Args = {
    quick: false,
    runs: 0,
    only: null,
    systems: [...SYSTEM_ORDER],
    profile: true,
    archiver: true,
    readme: true,
    bProducers: null,
    cluster: true,
    clusterPrimaries: null,
    clusterAcks: null,
    clusterReplicas: null,
    tailCacheBytes: null,
  };
  let profileSet = false;
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i]!;
    const val = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${x} needs a value`);
      return v;
    };
    if (x === '--quick') a.quick = true;
    else if (x === '--runs') a.runs = Number(val());
    else if (x === '--only') a.only = new Set(val().split(',').map((s) => s.trim().toLowerCase()));
    else if (x === '--systems') a.systems = val().split(',').map((s) => s.trim()) as SystemName[];
    else if (x === '--profile') (a.profile = true), (profileSet = true);
    else if (x === '--no-profile') (a.profile = false), (profileSet = true);
    else if (x === '--no-archiver') a.archiver = false;
    else if (x === '--no-readme') a.readme = false;
    else if (x === '--b-producers') a.bProducers = Number(val());
    else if (x === '--no-cluster') a.cluster = false;
    else if (x === '--cluster-primaries') a.clusterPrimaries = val().split(',').map((v) => Number(v.trim()));
    else if (x === '--cluster-acks') a.clusterAcks = val().split(',').map((v) => v.trim().toLowerCase().replace(/^-1$/, 'all')) as Acks[];
    else if (x === '--cluster-replicas') a.clusterReplicas = true;
    else if (x === '--no-cluster-replicas') a.clusterReplicas = false;
    else if (x === '--tail-cache-bytes') a.tailCacheBytes = Number(val());
    else throw new Error(`unknown option ${x}`);
  }
  if (a.quick && !profileSet) a.profile = false;
  if (!a.runs) a.runs = a.quick ? 1 : 3;
  for (const s of a.systems) if (!SYSTEM_ORDER.includes(s)) throw new Error(`unknown system ${s}`);
  if (a.only && !a.only.has('cluster')) a.cluster = false;
  for (const p of a.clusterPrimaries ?? []) if (!Number.isInteger(p) || p < 1) throw new Error(`--cluster-primaries: ${p} is not a positive integer`);
  for (const k of a.clusterAcks ?? []) if (k !== '1' && k !== 'all') throw new Error(`--cluster-acks: ${k} is neither 1 nor all`);
  return a;
}

const t0 = Date.now();
const log = (msg: string): void => {
  process.stderr.write(`[bench +${((Date.now() - t0) / 1000).toFixed(0).padStart(4)}s] ${msg}\n`);
};

function summaryLine(r: Row): string {
  if (r.error) return `ERROR ${r.error.split('\n')[0]!.slice(0, 200)}`;
  const m = r.metrics;
  if (r.workload === 'i-compaction') {
    return (
      `produce ${fmt(m.recordsPerSec, 0)} records/s (${fmt(m.produceVsDelete, 2)}x delete policy); ` +
      `compaction ${fmt(m.recordsBefore, 0)} -> ${fmt(m.recordsAfter, 0)} records in ${fmt(m.compactSec, 2)} s = ${fmt(m.compactionRecordsPerSec, 0)} records/s, ` +
      `stored ${fmt(m.bytesBefore, 0)} -> ${fmt(m.bytesAfter, 0)} B`
    );
  }
  if (r.workload === 'j-transactions') {
    return (
      `transactional produce ${fmt(m.recordsPerSec, 0)} records/s, ${fmt(m.mbPerSec, 1)} MiB/s (commit every ${fmt(m.txnMs, 0)} ms, ${fmt(m.recordsPerCommit, 0)} records/txn, commit avg ${fmt(m.commitAvgMs, 1)} ms); ` +
      `e2e read_committed p50 ${fmt(m.rcP50, 1)} ms p99 ${fmt(m.rcP99, 1)} ms, read_uncommitted p50 ${fmt(m.ruP50, 1)} ms p99 ${fmt(m.ruP99, 1)} ms`
    );
  }
  if (r.workload[0] === 'k') return secureSummary(m);
  if (r.workload === 'l-tiered') return tieredSummary(m);
  if (r.workload === 'm-cli') return cliSummary(m);
  if (r.workload === 'o-omb') return ombSummary(m);
  if (r.workload === 'p-groups') return groupsSummary(m);
  if (m.recordsPerSec !== undefined && r.workload[0] !== 'f') {
    const mem = m.redisBytesPerRecord != null ? `, ${fmt(m.redisBytesPerRecord, 0)} B/record in Redis` : m.logBytesPerRecord != null ? `, ${fmt(m.logBytesPerRecord, 0)} B/record on disk` : '';
    const lat = m.p99 != null ? `, p99 ${fmt(m.p99, 0)} ms` : '';
    return `${fmt(m.recordsPerSec, 0)} records/s, ${fmt(m.mbPerSec, 1)} MiB/s${lat}${mem}`;
  }
  return `p50 ${fmt(m.p50, 2)} ms, p99 ${fmt(m.p99, 2)} ms, p99.9 ${fmt(m.p999, 2)} ms, avg ${fmt(m.avgLatencyMs, 2)} ms`;
}

async function archiverHook(quick: boolean, counts: typeof FULL): Promise<ArchiverResult> {
  const entry = path.join(REPO_ROOT, 'bench', 'archiver', 'bench.mjs');
  if (!fs.existsSync(entry)) return { available: false, note: 'not available (bench/archiver has no runnable entry bench/archiver/bench.mjs)' };
  if (!fs.existsSync(path.join(REPO_ROOT, 'dist', 'archiver', 'src', 'bin.js'))) {
    return { available: false, note: 'not available (dist/archiver/src/bin.js not built)' };
  }
  // bench/archiver/bench.mjs belongs to the archiver's owner and writes its own
  // results.json; keep whatever is there.
  const own = path.join(REPO_ROOT, 'bench', 'archiver', 'results.json');
  const saved = fs.existsSync(own) ? fs.readFileSync(own) : null;
  // One partition: the issue-14 goals are per partition (bench/archiver/README.md).
  const args = [entry, '--records100', String(counts.archiver100), '--records1k', String(counts.archiver1k), '--targets', 'local', '--partitions', '1'];
  try {
    const r = await runCommand(process.execPath, args, { timeoutMs: quick ? 150_000 : 600_000, logName: 'bench-archiver' });
    const results = (r.stderr + '\n' + r.stdout)
      .split('\n')
      .filter((l) => l.trim().startsWith('{'))
      .map((l) => {
        try {
          return JSON.parse(l) as Record<string, unknown>;
        } catch {
          return null;
        }
      })
      .filter((x): x is Record<string, unknown> => !!x && 'recordsPerSec' in x);
    const note = `bench/archiver/bench.mjs --records100 ${counts.archiver100} --records1k ${counts.archiver1k} --targets local --partitions 1 (one run; Redis -> zstd Parquet -> Delta on local disk, one partition; S3 target skipped)`;
    if (r.code !== 0 || results.length === 0) {
      return { available: true, note, results, error: `exit ${r.code}${r.timedOut ? ' (timed out)' : ''}: ${(r.stderr || r.stdout).trim().split('\n').slice(-5).join(' | ')}` };
    }
    // typed columns (issue 30): the same 100 B Avro records untyped and typed (bench/archiver/bench.mjs --avro)
    const avroArgs = [entry, '--avro', '--records100', String(counts.archiver100), '--targets', 'local', '--partitions', '1'];
    const a = await runCommand(process.execPath, avroArgs, { timeoutMs: quick ? 150_000 : 600_000, logName: 'bench-archiver-avro' });
    const avro = (a.stderr + '\n' + a.stdout).split('\n').filter((l) => l.trim().startsWith('{"target"')).map((l) => JSON.parse(l) as Record<string, unknown>);
    if (a.code !== 0 || avro.length < 2) return { available: true, note, results, error: `--avro: exit ${a.code}: ${(a.stderr || a.stdout).trim().split('\n').slice(-3).join(' | ')}` };
    const perCore = (t: string) => Number(avro.find((x) => x['target'] === t)?.['recordsPerCoreSec']);
    const ratio = (perCore('local-avro-typed') / perCore('local-avro')).toFixed(2);
    return { available: true, note: `${note}; then --avro: 100 B Avro records untyped (local-avro) and into typed columns (local-avro-typed), typed/untyped records per core-second ${ratio}x`, results: [...results, ...avro] };
  } finally {
    if (saved) fs.writeFileSync(own, saved);
    else fs.rmSync(own, { force: true });
  }
}

/** A full-mode run of workload k on Kafka and Runnel replaces the README's TLS and SASL_SSL section. */
function secureReadmeWanted(r: BenchResult): boolean {
  return r.mode === 'full' && r.systems.includes('kafka') && r.systems.includes('runnel') && r.rows.some((x) => x.workload[0] === 'k');
}

/** A full-mode run of workload l on Kafka and Runnel replaces the README's tiered-storage section. */
function tieredReadmeWanted(r: BenchResult): boolean {
  return r.mode === 'full' && r.systems.includes('kafka') && r.systems.includes('runnel') && r.rows.some((x) => x.workload === 'l-tiered' && !x.error);
}

/** `--report <results.json>`: re-renders the Markdown, charts and README section of a finished run. */
function rerender(file: string): number {
  const r = JSON.parse(fs.readFileSync(file, 'utf8')) as BenchResult;
  const full = r.mode === 'full' && r.systems.length === SYSTEM_ORDER.length && r.rows.length > 0;
  const secure = secureReadmeWanted(r);
  const tiered = tieredReadmeWanted(r);
  const readme = path.join(REPO_ROOT, 'bench', 'README.md');
  const out = writeOutputs(r, path.dirname(path.resolve(file)), full ? readme : null, r.clusterDefault ? readme : null, secure ? readme : null, tiered ? readme : null);
  log(`re-rendered ${path.relative(REPO_ROOT, out.md)}${full || r.clusterDefault || secure || tiered ? ' and bench/README.md' : ''}`);
  return 0;
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv[0] === '--report') return rerender(argv[1] ?? '');
  const args = parseArgs(argv);
  const base = args.quick ? QUICK : FULL;
  // Same total records for b whatever the number of producers.
  const counts = args.bProducers ? { ...base, bProducers: args.bProducers, bPerProducer: Math.ceil((base.bProducers * base.bPerProducer) / args.bProducers) } : base;
  if (args.only?.has('e')) args.only.add('a').add('b');
  // e) is measured on what a) and b) wrote.
  const letter = (w: WorkloadId): string => (w === 'e-consume-a' ? 'a' : w === 'e-consume-b' ? 'b' : w[0]!);
  const want = (w: WorkloadId): boolean => !args.only || args.only.has(letter(w));
  // `--only cluster` runs no workload of the three systems: do not start them.
  const anyStandard = WORKLOADS.some((w) => want(w.id));
  const clusterDefaults = CLUSTER_DEFAULTS[args.quick ? 'quick' : 'full'];
  const cl = {
    primaries: args.clusterPrimaries ?? clusterDefaults.primaries,
    acks: args.clusterAcks ?? clusterDefaults.acks,
    replicas: args.clusterReplicas ?? clusterDefaults.replicas,
  };
  log(
    `mode ${args.quick ? 'quick' : 'full'}, ${args.runs} run(s), ${anyStandard ? `systems ${args.systems.join(', ')}` : 'no single-node workloads'}, ` +
      `cluster ${args.cluster ? `${cl.primaries.join('/')} primaries, acks ${cl.acks.join('/')}${cl.replicas ? ', + replicas' : ''}` : 'off'}, ${os.availableParallelism()} cores`,
  );

  await ensureBenchJava();
  const machine = machineInfo();
  const software = await softwareInfo();
  log(`software: ${JSON.stringify(software)}`);

  // k (TLS and SASL_SSL) needs Kafka and Runnel started with SSL and SASL_SSL listeners and one PKI for both.
  const wantSecure = WORKLOADS.some((w) => w.kind === 'secure' && want(w.id)) && args.systems.some((s) => s !== 'raw');
  let secure: SecureMaterial | null = null;
  const systems = new Map<SystemName, System>();
  const rows: Row[] = [];
  const settings: BenchResult['settings'] = {};
  const profiles: ProfileResult[] = [];
  let archiver: ArchiverResult = { available: false, note: 'skipped (--no-archiver)' };
  try {
    if (wantSecure) secure = await makeSecureMaterial();
    const so = secure ? { secure } : {};
    const runnelEnv: Record<string, string> = args.tailCacheBytes === null ? {} : { RUNNEL_LOG_TAIL_CACHE_BYTES: String(args.tailCacheBytes) };
    const starters: Record<SystemName, () => Promise<System>> = { kafka: () => startKafkaSystem(so), runnel: () => startRunnelSystem({ ...so, env: runnelEnv }), raw: startRawSystem };
    if (anyStandard) log('starting systems');
    for (const s of anyStandard ? args.systems : []) {
      systems.set(s, await starters[s]());
      settings[s] = await systems.get(s)!.describe();
      log(`${SYSTEM_LABEL[s]} up${systems.get(s)!.bootstrap ? ` at ${systems.get(s)!.bootstrap}` : ''}: ${JSON.stringify(settings[s])}`);
    }
    if (counts.warmup > 0) {
      for (const s of systems.values()) {
        log(`warm-up ${SYSTEM_LABEL[s.name]} (${counts.warmup} records, not measured)`);
        await warmUp(s, counts.warmup).catch((e) => log(`warm-up ${s.name} failed: ${errText(e)}`));
      }
    }

    const produceIds: WorkloadId[] = ['a-produce-1p', 'b-produce-16p', 'c-produce-defaults', 'd-zstd-100B', 'd-lz4-100B'];
    for (let run = 1; run <= args.runs; run++) {
      const ctx: Ctx = { counts, run, hints: new Map(), log };
      // Alternate the order so no system always runs right after another one's
      // cleanup; raw always follows Runnel (it replays what Runnel stored).
      const order: SystemName[] = (run % 2 ? ['kafka', 'runnel', 'raw'] : ['runnel', 'raw', 'kafka']).filter((s) => systems.has(s as SystemName)) as SystemName[];
      for (const w of produceIds.filter(want)) {
        for (const s of order) {
          const out = await runProduce(systems.get(s)!, w, ctx);
          for (const r of out) {
            rows.push(r);
            log(`run ${run} ${r.workload.padEnd(18)} ${SYSTEM_LABEL[s].padEnd(12)} ${summaryLine(r)}`);
          }
        }
      }
      for (const [w, fn] of [
        ['f-ack-latency', runAckLatency],
        ['f-e2e-latency', runEndToEnd],
      ] as const) {
        if (!want(w)) continue;
        for (const s of order) {
          const r = await fn(systems.get(s)!, ctx);
          rows.push(r);
          log(`run ${run} ${r.workload.padEnd(18)} ${SYSTEM_LABEL[s].padEnd(12)} ${summaryLine(r)}`);
        }
      }
      if (want('i-compaction')) {
        // Kafka and Runnel only: raw Redis has no cleaner.
        for (const s of order.filter((x) => x !== 'raw')) {
          const r = await runCompaction(systems.get(s)!, ctx);
          rows.push(r);
          log(`run ${run} ${r.workload.padEnd(18)} ${SYSTEM_LABEL[s].padEnd(12)} ${summaryLine(r)}`);
        }
      }
      if (want('j-transactions')) {
        // Kafka and Runnel only: raw Redis has no transactions.
        for (const s of order.filter((x) => x !== 'raw')) {
          const r = await runTransactions(systems.get(s)!, ctx);
          rows.push(r);
          log(`run ${run} ${r.workload.padEnd(18)} ${SYSTEM_LABEL[s].padEnd(12)} ${summaryLine(r)}`);
        }
      }
      if (want('l-tiered')) {
        // Kafka and Runnel only; Runnel runs on a stack of its own with a lake and an archiver (tiered.ts).
        for (const s of order.filter((x) => x !== 'raw')) {
          const r = await runTiered(systems.get(s)!, ctx);
          rows.push(r);
          log(`run ${run} ${r.workload.padEnd(18)} ${SYSTEM_LABEL[s].padEnd(12)} ${summaryLine(r)}`);
        }
      }
      if (want('n-tail')) {
        // Kafka and Runnel only: raw Redis has no consumer at the tail to compare.
        for (const s of order.filter((x) => x !== 'raw')) {
          const r = await runTail(systems.get(s)!, ctx);
          rows.push(r);
          log(`run ${run} ${r.workload.padEnd(18)} ${SYSTEM_LABEL[s].padEnd(12)} ${summaryLine(r)}`);
        }
      }
      if (want('o-omb')) {
        for (const s of order.filter((x) => x !== 'raw')) {
          const r = await runOmb(systems.get(s)!, ctx);
          rows.push(r);
          log(`run ${run} ${r.workload.padEnd(18)} ${SYSTEM_LABEL[s].padEnd(12)} ${summaryLine(r)}`);
        }
      }
      if (want('m-cli')) {
        // Kafka and Runnel only: the clients need a Kafka listener.
        for (const s of order.filter((x) => x !== 'raw')) {
          const r = await runCli(systems.get(s)!, ctx);
          rows.push(r);
          log(`run ${run} ${r.workload.padEnd(18)} ${SYSTEM_LABEL[s].padEnd(12)} ${summaryLine(r)}`);
        }
      }
      if (want('p-groups')) {
        // Kafka and Runnel only: groups need a Kafka listener. Share groups where ShareFetch (78) is advertised.
        for (const s of order.filter((x) => x !== 'raw')) {
          const sys = systems.get(s)!;
          const r = await runGroups(sys, ctx, (await maxApiVersion(sys.bootstrap, 78).catch(() => -1)) >= 1);
          rows.push(r);
          log(`run ${run} ${r.workload.padEnd(18)} ${SYSTEM_LABEL[s].padEnd(12)} ${summaryLine(r)}`);
        }
      }
      if (secure) {
        // Kafka and Runnel only: raw Redis has no Kafka listener to secure.
        for (const s of order.filter((x) => x !== 'raw')) {
          for (const r of await runSecure(systems.get(s)!, ctx, secure)) {
            rows.push(r);
            log(`run ${run} ${r.workload.padEnd(18)} ${SYSTEM_LABEL[s].padEnd(12)} ${summaryLine(r)}`);
          }
        }
      }
    }
  } finally {
    log('stopping systems');
    for (const s of systems.values()) await s.stop().catch((e) => log(`stop ${s.name}: ${errText(e)}`));
    await stopTiered().catch((e) => log(`stop the tiered stack: ${errText(e)}`));
    secure?.cleanup();
  }

  let cluster: BenchResult['cluster'];
  let clusterError: string | null = null;
  if (args.cluster) {
    log(`cluster scale: Runnel on Redis Cluster, ${cl.primaries.join(', ')} primaries`);
    cluster = await runClusterScale({
      quick: args.quick,
      runs: args.runs,
      primaries: cl.primaries,
      acks: cl.acks,
      replicas: cl.replicas,
      profileDir: args.profile ? path.join(REPO_ROOT, '.cache', 'bench-prof') : undefined,
      log,
    }).catch((e) => {
      // A cluster or broker that would not start: the other workloads' results still get written.
      clusterError = errText(e);
      log(`cluster scale failed: ${clusterError}`);
      return undefined;
    });
  }

  if (args.profile && args.systems.includes('runnel') && anyStandard) {
    for (const w of ['a', 'c', 'e'] as const) {
      if (args.only && !args.only.has(w)) continue;
      log(`profiling Runnel on workload ${w} (node --cpu-prof)`);
      const dir = path.join(REPO_ROOT, '.cache', 'bench-prof');
      const p = await (w === 'e' ? profileRunnelConsume(counts, dir) : profileRunnel(w, counts, dir)).catch(
        (e): ProfileResult => ({ workload: w, file: '', recordsPerSec: null, summary: null, error: errText(e) }),
      );
      profiles.push(p);
      if (p.summary) {
        const top = p.summary.top.slice(0, 5).map((t) => `${t.fn} ${t.selfPct.toFixed(1)}%`).join(', ');
        log(`profile ${w}: ${p.file} — GC ${p.summary.gcPct.toFixed(1)}%; top self: ${top}`);
      } else log(`profile ${w}: ${p.error}`);
    }
  }

  if (args.archiver && (!args.only || args.only.has('h'))) {
    log('archiver hook (h)');
    archiver = await archiverHook(args.quick, counts).catch((e) => ({ available: true, note: 'bench/archiver/bench.mjs', error: errText(e) }));
    log(`archiver: ${archiver.error ? `ERROR ${archiver.error}` : archiver.note} ${JSON.stringify(archiver.results ?? [])}`);
  }

  const medians = computeMedians(rows);
  const failures: string[] = [];
  for (const w of WORKLOADS.filter((x) => want(x.id))) {
    for (const s of (anyStandard ? args.systems : []).filter((x) => !w.systems || w.systems.includes(x))) {
      const v = medians[w.id]?.[s]?.[w.primary];
      if (typeof v !== 'number' || !Number.isFinite(v)) {
        const errs = rows.filter((r) => r.workload === w.id && r.system === s && r.error).map((r) => r.error!.split('\n')[0]);
        failures.push(`${w.id} on ${SYSTEM_LABEL[s]}: no ${w.primary}${errs.length ? ` (${errs[0]})` : ''}`);
      }
    }
  }
  if (archiver.available && !(archiver.results ?? []).length) failures.push(`h-archiver: no number (${archiver.error ?? 'no results'})`);
  if (clusterError) failures.push(`cluster: ${String(clusterError).split('\n')[0]}`);
  for (const c of cluster?.configs ?? []) {
    const v = cluster!.medians[c.id]?.recordsPerSec;
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      const err = cluster!.rows.find((r) => r.config === c.id && r.error)?.error?.split('\n')[0];
      failures.push(`cluster ${c.id}: no recordsPerSec${err ? ` (${err})` : ''}`);
    }
  }

  const result: BenchResult = {
    timestamp: new Date().toISOString(),
    mode: args.quick ? 'quick' : 'full',
    runs: args.runs,
    durationSec: (Date.now() - t0) / 1000,
    counts,
    machine,
    software,
    settings,
    systems: args.systems,
    rows,
    medians,
    profiles,
    archiver,
    failures,
    cluster,
    clusterDefault:
      !!cluster &&
      !args.quick &&
      cl.primaries.join() === CLUSTER_DEFAULTS.full.primaries.join() &&
      cl.acks.join() === CLUSTER_DEFAULTS.full.acks.join(),
  };
  const updateReadme = !args.quick && args.readme && !args.only && args.systems.length === SYSTEM_ORDER.length;
  // The cluster section is replaced by any full run of the cluster family with its default configurations (--only cluster too).
  const updateClusterReadme = args.readme && !!result.clusterDefault;
  const updateSecureReadme = args.readme && secureReadmeWanted(result);
  const updateTieredReadme = args.readme && tieredReadmeWanted(result);
  const readmePath = path.join(REPO_ROOT, 'bench', 'README.md');
  const out = writeOutputs(
    result,
    path.join(REPO_ROOT, 'bench', 'results'),
    updateReadme ? readmePath : null,
    updateClusterReadme ? readmePath : null,
    updateSecureReadme ? readmePath : null,
    updateTieredReadme ? readmePath : null,
  );
  if (anyStandard) process.stdout.write(`\n${markdown(result, path.basename(out.md, '.md'))}\n`);
  if (cluster) process.stdout.write(`\n## Cluster scale\n\n${clusterSection(result)}\n`);
  const readmeNote = [updateReadme ? 'its results' : '', updateClusterReadme ? 'its cluster section' : '', updateSecureReadme ? 'its TLS and SASL_SSL section' : '', updateTieredReadme ? 'its tiered-storage section' : ''].filter(Boolean).join(' and ');
  log(`wrote ${path.relative(REPO_ROOT, out.json)} and ${path.relative(REPO_ROOT, out.md)}${readmeNote ? ` and bench/README.md (${readmeNote})` : ''}`);
  if (failures.length) {
    log(`FAILED: ${failures.length} workload(s) produced no number:\n  ${failures.join('\n  ')}`);
    return 1;
  }
  log(`done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  },
);
