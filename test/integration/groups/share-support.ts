// The Java share consumer of the share-group suites
// (test/integration/groups/java/ShareConsumerApp.java): compiled once per
// suite, started as a managed process whose log holds one JSON line per record.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { JAVA_CP, log4jConfig } from '../../helpers/java.js';
import { REPO_ROOT, runCommand, spawnManaged, type ManagedProcess } from '../../helpers/procs.js';

/** Compiles ShareConsumerApp into a fresh folder; returns it. */
export async function compileShareConsumerApp(): Promise<string> {
  const classes = fs.mkdtempSync(path.join(os.tmpdir(), 'share-java-'));
  const javac = await runCommand('javac', ['-nowarn', '-d', classes, '-cp', JAVA_CP, path.join(REPO_ROOT, 'test/integration/groups/java/ShareConsumerApp.java')], { timeoutMs: 120_000 });
  if (javac.code !== 0) throw new Error(`javac ShareConsumerApp failed: ${javac.stderr}`);
  return classes;
}

/** One ShareConsumerApp (acknowledging as `mode` says) of `group` on `topic`. */
export function shareConsumer(classes: string, bootstrap: string, name: string, topic: string, group: string, mode: string, maxPollRecords?: number): ManagedProcess {
  return spawnManaged(name, 'java', ['-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', `-Dlog4j2.configurationFile=${log4jConfig('WARN')}`,
    '-cp', `${classes}${path.delimiter}${JAVA_CP}`, 'ShareConsumerApp', bootstrap, topic, group, mode, ...(maxPollRecords ? [String(maxPollRecords)] : [])]);
}
