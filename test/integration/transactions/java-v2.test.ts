// A Kafka 4.4 Java transactional producer runs transactions v2 (KIP-890 part
// 2) against the broker (issue 31): it reads the finalized
// `transaction.version` 2 from ApiVersions and so sends Produce v12 and
// TxnOffsetCommit v5 (partitions and the group are added implicitly, no
// AddPartitionsToTxn or AddOffsetsToTxn) and EndTxn v5, whose answer carries
// the epoch the coordinator bumped at every transaction end. The program
// (java/TxnV2Producer.java) commits and aborts several transactions, some with
// sendOffsetsToTransaction, describes the transactional id after each end,
// and reads the topic back with a read_committed consumer.
// Proof that v2 was used: the client's own flag (TransactionManager.
// isTransactionV2Enabled), the producer epoch rising by one per transaction
// end (only EndTxn v5 bumps it), and on Runnel the broker's request counters:
// EndTxn and TxnOffsetCommit requests but not a single AddPartitionsToTxn or
// AddOffsetsToTxn. Runs against Apache Kafka too (RUNNEL_TEST_TARGET=kafka),
// where the request counters are not read.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileJava, runJava, assertOk } from '../../helpers/java.js';
import { freePort, REPO_ROOT } from '../../helpers/procs.js';
import { startTarget, type Target } from '../../helpers/target.js';

const SRC = path.join(REPO_ROOT, 'test', 'integration', 'transactions', 'java', 'TxnV2Producer.java');
const TOPIC = 'txn-v2';
const TXN_ID = 'txn-v2-producer';
const GROUP = 'txn-v2-group';
const TRANSACTIONS = 9;

let target: Target;
let httpPort = 0;
let classes: Promise<string>;

beforeAll(async () => {
  classes = compileJava([SRC]);
  httpPort = await freePort();
  target = await startTarget({ runnel: { args: ['--set', `http.port=${httpPort}`] } });
  await classes;
}, 300_000);

afterAll(async () => {
  await target?.stop();
});

/** One sample of the broker's Prometheus exposition, 0 when the series does not exist. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

interface Line { t: string; [k: string]: unknown }

describe('a Kafka 4.x transactional producer with transactions v2', () => {
  it('commits and aborts with an epoch bump per transaction; read_committed sees exactly the committed records', async () => {
    const r = assertOk('TxnV2Producer', await runJava('TxnV2Producer', [target.bootstrap, TOPIC, TXN_ID, GROUP, String(TRANSACTIONS)], {
      classpath: [await classes], timeoutMs: 90_000,
    }));
    const lines = r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Line);
    expect(lines.at(-1)).toEqual({ t: 'done' });

    // The client chose transactions v2 from the finalized transaction.version.
    expect(lines.find((l) => l.t === 'tv2')).toEqual({ t: 'tv2', enabled: true });

    // Every end bumps the epoch by one (EndTxn v5): initTransactions gave epoch 0, transaction i ends on i + 1.
    const ends = lines.filter((l) => l.t === 'end');
    expect(ends).toHaveLength(TRANSACTIONS);
    const pid = ends[0]!.pid;
    ends.forEach((e, i) => {
      expect(e).toMatchObject({ i, commit: i % 3 !== 1, pid, epoch: i + 1 });
      expect(e.state).toMatch(e.commit ? /^(PrepareCommit|CompleteCommit)$/ : /^(PrepareAbort|CompleteAbort)$/);
    });

    // read_committed: exactly the records of the committed transactions, each once, in order per partition.
    const committed = Array.from({ length: TRANSACTIONS }, (_, i) => i).filter((i) => i % 3 !== 1);
    const got = lines.filter((l) => l.t === 'rec');
    for (let p = 0; p < 3; p++) {
      const expected = committed.flatMap((i) => [`t${i}-r${p}`, `t${i}-r${p + 3}`]);
      expect(got.filter((l) => l.p === p).map((l) => l.v)).toEqual(expected);
    }

    // Offsets sent in transactions 0, 3, 6 (all committed): the group is at the last one's.
    expect(lines.find((l) => l.t === 'offset')).toEqual({ t: 'offset', offset: 7 });

    if (target.kind !== 'runnel') return;
    const res = await fetch(`http://127.0.0.1:${httpPort}/metrics`, { signal: AbortSignal.timeout(10_000) });
    const metrics = await res.text();
    const count = (api: string) => sample(metrics, `runnel_requests_total{api="${api}",error="NONE"}`);
    expect(count('EndTxn')).toBe(TRANSACTIONS);
    expect(count('TxnOffsetCommit')).toBe(3);
    // Transactions v2: the partitions and the group joined the transactions through Produce v12 and TxnOffsetCommit v5.
    expect(metrics).not.toMatch(/runnel_requests_total\{api="AddPartitionsToTxn"/);
    expect(metrics).not.toMatch(/runnel_requests_total\{api="AddOffsetsToTxn"/);
  }, 120_000);
});
