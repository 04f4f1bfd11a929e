// Kafka's own system-test client for share groups, VerifiableShareConsumer
// (kafka-tools 4.4): two of them in one share group on a 2-partition topic,
// --offset-reset-strategy earliest (it sets share.auto.offset.reset as a
// group config), synchronous acknowledgement. From the JSON events they print:
// every record produced is acknowledged exactly once between them, each
// acknowledgement succeeds, and both took part. Also against Apache Kafka 4.4
// with RUNNEL_TEST_TARGET=kafka.
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTopic, JAVA_CP, log4jConfig } from '../../helpers/java.js';
import { runCommand, spawnManaged, waitFor, type ManagedProcess } from '../../helpers/procs.js';
import { startTarget, type Target } from '../../helpers/target.js';

const TOPIC = 'vsc';
const N = 4000;
let target: Target;
const running: ManagedProcess[] = [];

beforeAll(async () => {
  target = await startTarget();
}, 120_000);
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop(5000)));
});
afterAll(async () => {
  await target?.stop();
});

interface Acked { name: string; success?: boolean; partitions?: Array<{ partition: number; offsets: number[] }> }

function verifiable(name: string): ManagedProcess {
  const p = spawnManaged(name, 'java', ['-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', `-Dlog4j2.configurationFile=${log4jConfig('WARN')}`, '-cp', JAVA_CP,
    'org.apache.kafka.tools.VerifiableShareConsumer', '--bootstrap-server', target.bootstrap, '--topic', TOPIC, '--group-id', 'vsc-group',
    '--offset-reset-strategy', 'earliest', '--acknowledgement-mode', 'sync']);
  running.push(p);
  return p;
}
const events = (p: ManagedProcess): Acked[] => fs.readFileSync(p.logFile, 'utf8').split('\n').filter((l) => l.startsWith('{"timestamp"')).map((l) => JSON.parse(l) as Acked);
/** Every (partition, offset) a consumer acknowledged, as "p/o", with repeats. */
const acked = (p: ManagedProcess): string[] =>
  events(p).filter((e) => e.name === 'offsets_acknowledged' && e.success).flatMap((e) => e.partitions!.flatMap((x) => x.offsets.map((o) => `${x.partition}/${o}`)));

describe('VerifiableShareConsumer (kafka-tools)', () => {
  it('two share consumers acknowledge every record exactly once between them', async () => {
    await createTopic(target.bootstrap, TOPIC, 2);
    const a = verifiable('vsc-a');
    const b = verifiable('vsc-b');
    await waitFor('both started', () => [a, b].every((p) => events(p).some((e) => e.name === 'startup_complete')), { timeoutMs: 60_000, intervalMs: 200 });
    // records go to both partitions (kcat's default partitioner spreads keyless records)
    const input = Array.from({ length: N }, (_, i) => `r${i}`).join('\n') + '\n';
    const r = await runCommand('kcat', ['-b', target.bootstrap, '-P', '-t', TOPIC, '-X', 'partitioner=random'], { input, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    await waitFor(`${N} records acknowledged`, () => new Set([...acked(a), ...acked(b)]).size >= N, { timeoutMs: 90_000, intervalMs: 250 });
    await new Promise((res) => setTimeout(res, 1000)); // nothing is acknowledged twice afterwards either
    const all = [...acked(a), ...acked(b)];
    expect(all.length).toBe(N);
    expect(new Set(all).size).toBe(N);
    expect(events(a).concat(events(b)).filter((e) => e.name === 'offsets_acknowledged' && e.success === false)).toEqual([]);
    expect(acked(a).length).toBeGreaterThan(0);
    expect(acked(b).length).toBeGreaterThan(0);
    console.log(`[verifiable-share ${target.kind}] ${N} records acknowledged once: ${acked(a).length} by a, ${acked(b).length} by b`);
  }, 240_000);
});
