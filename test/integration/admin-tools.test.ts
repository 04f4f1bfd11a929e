// Kafka's own admin tools for log dirs and producer state:
// `kafka-log-dirs --describe` (LogDirsCommand) and
// `kafka-transactions describe-producers` (TransactionsCommand).
import { describe, expect, it } from 'vitest';
import { assertOk, runJava } from '../helpers/java.js';
import { runCommand } from '../helpers/procs.js';
import { idempotentProducer } from './support.js';
import { useBroker } from './broker-fixture.js';

const fx = useBroker();

describe('admin tools', () => {
  it('kafka-log-dirs shows the partitions with their stream sizes', async () => {
    const r = await runCommand('kcat', ['-b', fx.broker.bootstrap, '-P', '-t', 'dirs', '-K:'], { input: 'a:1\nb:2\nc:3\n', timeoutMs: 30_000 });
    expect(r.code).toBe(0);
    const out = assertOk('log dirs', await runJava('org.apache.kafka.tools.LogDirsCommand', ['--bootstrap-server', fx.broker.bootstrap, '--describe', '--topic-list', 'dirs'], { timeoutMs: 60_000 }));
    const json = JSON.parse(out.stdout.split('\n').find((l) => l.trim().startsWith('{'))!);
    const dir = json.brokers[0].logDirs[0];
    expect(dir.logDir).toBe('redis:rn');
    expect(dir.partitions).toHaveLength(1);
    expect(dir.partitions[0].partition).toBe('dirs-0');
    expect(dir.partitions[0].size).toBeGreaterThan(0);
  });

  it('kafka-transactions describe-producers shows an idempotent producer and its last sequence', async () => {
    const { acked } = await idempotentProducer({ bootstrap: fx.broker.bootstrap, topic: 'prods', maxMessages: 500 });
    expect(acked).toHaveLength(500);
    const out = assertOk('describe-producers', await runJava('org.apache.kafka.tools.TransactionsCommand', ['--bootstrap-server', fx.broker.bootstrap, 'describe-producers', '--topic', 'prods', '--partition', '0'], { timeoutMs: 60_000 }));
    const rows = out.stdout.split('\n').map((l) => l.trim().split(/\s+/)).filter((f) => /^\d+$/.test(f[0] ?? ''));
    expect(rows).toHaveLength(1);
    // columns: ProducerId ProducerEpoch LatestCoordinatorEpoch LastSequence LastTimestamp CurrentTransactionStartOffset
    expect(Number(rows[0]![3])).toBe(499);
  });
});
