import { runCommand } from '../helpers/procs.js';

export interface ConsumedRecord { partition: number; offset: number; value: string }

/** Reads a whole topic with kcat (no consumer group), in offset order per partition. */
export async function readTopic(bootstrap: string, topic: string): Promise<ConsumedRecord[]> {
  const r = await runCommand('kcat', ['-b', bootstrap, '-C', '-t', topic, '-e', '-o', 'beginning', '-q', '-f', '%p %o %s\\n'], { timeoutMs: 120_000 });
  if (r.code !== 0) throw new Error(`kcat failed: ${r.stderr}`);
  return r.stdout.split('\n').filter(Boolean).map((line) => {
    const [p, o, ...v] = line.split(' ');
    return { partition: Number(p), offset: Number(o), value: v.join(' ') };
  });
}

/** Asserts offsets are 0..n-1 in each partition; returns the per-partition counts. */
export function denseOffsets(records: ConsumedRecord[]): Map<number, number> {
  const next = new Map<number, number>();
  for (const r of records) {
    const expected = next.get(r.partition) ?? 0;
    if (r.offset !== expected) throw new Error(`partition ${r.partition}: offset ${r.offset}, expected ${expected}`);
    next.set(r.partition, expected + 1);
  }
  return next;
}

export function duplicates(values: string[]): string[] {
  const seen = new Set<string>();
  const dup: string[] = [];
  for (const v of values) {
    if (seen.has(v)) dup.push(v);
    seen.add(v);
  }
  return dup;
}

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseJsonLines, runJava, type VerifiableEvent } from '../helpers/java.js';

/**
 * VerifiableProducer with the Java defaults that matter here: acks=all,
 * idempotence on and unlimited retries (the tool itself defaults retries to 0).
 */
export async function idempotentProducer(o: { bootstrap: string; topic: string; maxMessages: number; throughput?: number }): Promise<{ acked: string[]; events: VerifiableEvent[] }> {
  const cfg = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vp-')), 'producer.properties');
  fs.writeFileSync(cfg, 'enable.idempotence=true\nacks=all\nretries=2147483647\ndelivery.timeout.ms=120000\nretry.backoff.ms=100\n');
  const args = ['--bootstrap-server', o.bootstrap, '--topic', o.topic, '--max-messages', String(o.maxMessages), '--acks', '-1', '--producer.config', cfg];
  if (o.throughput !== undefined) args.push('--throughput', String(o.throughput));
  const raw = await runJava('org.apache.kafka.tools.VerifiableProducer', args, { timeoutMs: 300_000 });
  const events = parseJsonLines(raw.stdout);
  return { events, acked: events.filter((e) => e.name === 'producer_send_success').map((e) => String(e.value)) };
}
