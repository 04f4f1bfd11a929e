// Shared plumbing for the unmodified-application tests (Kafka Streams, Kafka
// Connect, MirrorMaker 2): start a JVM application from .cache/java/lib with
// fast start-up flags, feed topics and read them back with kcat.
import fs from 'node:fs';
import path from 'node:path';
import { compileJava, JAVA_CP, JAVA_LIB, javaCds, log4jConfig } from '../../helpers/java.js';
import { REPO_ROOT, runCommand, spawnManaged, waitFor, type ManagedProcess } from '../../helpers/procs.js';

const JAVA_SRC = path.join(REPO_ROOT, 'test', 'integration', 'apps', 'java');
/** The application jars (test/setup/java/pom.xml) besides the clients and tools. */
const APP_JARS = ['kafka-streams', 'connect-runtime', 'connect-file', 'connect-mirror', 'connect-mirror-client'];

/**
 * Compiles the apps' Java sources (the Streams word count and the compat shims
 * for the 4.3.1 Connect plugin jars, see java/compat) and returns the class
 * directory to put on the application's classpath.
 */
export function compileAppClasses(): Promise<string> {
  const lib = fs.readdirSync(JAVA_LIB);
  const missing = APP_JARS.filter((j) => !lib.some((f) => f.startsWith(`${j}-`) && /^\d/.test(f.slice(j.length + 1))));
  if (missing.length > 0) throw new Error(`${missing.join(', ')} jars missing in ${JAVA_LIB}: run bash test/setup/install.sh`);
  return compileJava([
    path.join(JAVA_SRC, 'WordCountApp.java'),
    path.join(JAVA_SRC, 'compat', 'AppInfoParser.java'),
    path.join(JAVA_SRC, 'compat', 'Exit.java'),
  ]);
}

/** Small heap, serial GC and C1 only: these JVMs live seconds, start-up time dominates. */
export const FAST_JVM = ['-Xmx384m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Djava.awt.headless=true'];

/** Spawns `java <mainClass> args` with the Kafka jars (plus `classpath`) and log4j2 at INFO to the log file. */
export function spawnJavaApp(
  name: string,
  mainClass: string,
  args: string[],
  opts: { classpath?: string[]; jvmArgs?: string[]; logLevel?: 'WARN' | 'INFO' } = {},
): ManagedProcess {
  const cp = [JAVA_CP, ...(opts.classpath ?? [])].join(path.delimiter);
  return spawnManaged(name, 'java', [
    ...FAST_JVM,
    ...javaCds(true).args,
    ...(opts.jvmArgs ?? []),
    `-Dlog4j2.configurationFile=${log4jConfig(opts.logLevel ?? 'WARN')}`,
    '-cp', cp, mainClass, ...args,
  ]);
}

/** The process's log so far (stdout and stderr interleaved). */
export function logOf(proc: ManagedProcess): string {
  return fs.readFileSync(proc.logFile, 'utf8');
}

/** Waits until the process's log matches `re` (fails fast if it exits). */
export async function waitForLog(proc: ManagedProcess, re: RegExp, what: string, timeoutMs = 60_000): Promise<void> {
  await waitFor(what, () => re.test(logOf(proc)), { proc, timeoutMs, intervalMs: 200 });
}

/**
 * For a wait whose outcome the caller then asserts exactly (so a timeout shows
 * the difference): swallows the timeout, but not the application's death.
 */
export function unlessDied(proc: ManagedProcess | undefined): (err: unknown) => void {
  return (err) => {
    if (proc && !proc.running()) throw err;
  };
}

/** Produces one record per line (no key) with kcat; resolves once all are acknowledged (acks=all). */
export async function produceLines(bootstrap: string, topic: string, lines: string[], partition?: number): Promise<void> {
  const args = ['-b', bootstrap, '-P', '-t', topic, '-X', 'acks=all', '-q'];
  if (partition !== undefined) args.push('-p', String(partition));
  const r = await runCommand('kcat', args, { input: lines.join('\n') + '\n', timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`kcat produce to ${topic} failed (code ${r.code}): ${r.stderr}`);
}

/** Produces keyed records with kcat (key and value must not contain TAB or newline). */
export async function produceKeyed(bootstrap: string, topic: string, records: [string, string][]): Promise<void> {
  const r = await runCommand('kcat', ['-b', bootstrap, '-P', '-t', topic, '-K', '\t', '-X', 'acks=all', '-q'], {
    input: records.map(([k, v]) => `${k}\t${v}`).join('\n') + '\n',
    timeoutMs: 60_000,
  });
  if (r.code !== 0) throw new Error(`kcat produce to ${topic} failed (code ${r.code}): ${r.stderr}`);
}

export interface KeyedRecord { partition: number; offset: number; key: string; value: string }

/**
 * Reads a whole topic with kcat (no group): per partition in offset order.
 * `isolation` is librdkafka's isolation.level (its default is read_committed).
 */
export async function readKeyed(
  bootstrap: string,
  topic: string,
  isolation: 'read_committed' | 'read_uncommitted' = 'read_committed',
): Promise<KeyedRecord[]> {
  const args = ['-b', bootstrap, '-C', '-t', topic, '-X', `isolation.level=${isolation}`, '-e', '-o', 'beginning', '-q', '-f', '%p\t%o\t%k\t%s\n'];
  const r = await runCommand('kcat', args, { timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`kcat consume ${topic} failed (code ${r.code}): ${r.stderr}`);
  return r.stdout.split('\n').filter(Boolean).map((line) => {
    const [p, o, k, ...v] = line.split('\t');
    return { partition: Number(p), offset: Number(o), key: k ?? '', value: v.join('\t') };
  });
}

/** Deterministic pseudo-random numbers (mulberry32), so a failing run can be replayed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
