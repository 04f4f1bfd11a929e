// Runs java/TxnV2Producer.java (a Kafka 4.4 transactional producer, see its
// head comment) and checks what it reports: transactions v2 turned on, the
// producer epoch one higher after each transaction end (EndTxn v5 bumps it),
// read_committed reading exactly the committed records, and the group's
// offset from the last committed sendOffsetsToTransaction. Used by
// java-v2.test.ts (one broker, also against Kafka) and
// java-v2-two-brokers.test.ts.
import path from 'node:path';
import { expect } from 'vitest';
import { assertOk, compileJava, runJava } from '../../helpers/java.js';
import { REPO_ROOT } from '../../helpers/procs.js';

const SRC = path.join(REPO_ROOT, 'test', 'integration', 'transactions', 'java', 'TxnV2Producer.java');

export const compileTxnV2 = (): Promise<string> => compileJava([SRC]);

interface Line { t: string; [k: string]: unknown }

export interface TxnV2Run { topic: string; transactionalId: string; group: string; transactions: number; partitions: number }

/** Runs the program against `bootstrap` and asserts its report; transaction i aborts when i % 3 == 1. */
export async function runAndCheckTxnV2(classes: string, bootstrap: string, o: TxnV2Run): Promise<void> {
  const r = assertOk('TxnV2Producer', await runJava('TxnV2Producer', [bootstrap, o.topic, o.transactionalId, o.group, String(o.transactions), String(o.partitions)], {
    classpath: [classes], timeoutMs: 90_000,
  }));
  const lines = r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Line);
  expect(lines.at(-1)).toEqual({ t: 'done' });

  // The client chose transactions v2 from the finalized transaction.version.
  expect(lines.find((l) => l.t === 'tv2')).toEqual({ t: 'tv2', enabled: true });

  // Every end bumps the epoch by one (EndTxn v5): initTransactions gave epoch 0, transaction i ends on i + 1.
  const ends = lines.filter((l) => l.t === 'end');
  expect(ends).toHaveLength(o.transactions);
  const pid = ends[0]!.pid;
  ends.forEach((e, i) => {
    expect(e).toMatchObject({ i, commit: i % 3 !== 1, pid, epoch: i + 1 });
    expect(e.state).toMatch(e.commit ? /^(PrepareCommit|CompleteCommit)$/ : /^(PrepareAbort|CompleteAbort)$/);
  });

  // read_committed: exactly the records of the committed transactions, each once, in order per partition.
  const committed = Array.from({ length: o.transactions }, (_, i) => i).filter((i) => i % 3 !== 1);
  const got = lines.filter((l) => l.t === 'rec');
  for (let p = 0; p < o.partitions; p++) {
    const expected = committed.flatMap((i) => [`t${i}-r${p}`, `t${i}-r${p + o.partitions}`]);
    expect(got.filter((l) => l.p === p).map((l) => l.v)).toEqual(expected);
  }
  expect(got).toHaveLength(committed.length * 2 * o.partitions);

  // Offsets sent in transactions 0, 3, 6, ... (all committed): the group is at the last one's (i + 1).
  const lastOffsetTxn = Math.floor((o.transactions - 1) / 3) * 3;
  expect(lines.find((l) => l.t === 'offset')).toEqual({ t: 'offset', offset: lastOffsetTxn + 1 });
}

/** Requests of `api` a broker answered without error (its runnel_requests_total), 0 when none. */
export async function requestCount(httpPort: number, api: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${httpPort}/metrics`, { signal: AbortSignal.timeout(10_000) });
  const series = `runnel_requests_total{api="${api}",error="NONE"}`;
  const line = (await res.text()).split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

/** Whether a broker answered any request of `api`, whatever its error. */
export async function anyRequests(httpPort: number, api: string): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${httpPort}/metrics`, { signal: AbortSignal.timeout(10_000) });
  return (await res.text()).includes(`runnel_requests_total{api="${api}"`);
}
