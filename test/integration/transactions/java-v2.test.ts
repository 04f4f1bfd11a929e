// A Kafka 4.4 Java transactional producer runs transactions v2 (KIP-890 part
// 2) against the broker (issue 31): it reads the finalized
// `transaction.version` 2 from ApiVersions and so sends Produce v12 and
// TxnOffsetCommit v5 (partitions and the group are added implicitly, no
// AddPartitionsToTxn or AddOffsetsToTxn) and EndTxn v5, whose answer carries
// the epoch the coordinator bumped at every transaction end. The program
// (java/TxnV2Producer.java) commits and aborts several transactions, some with
// sendOffsetsToTransaction, describes the transactional id after each end,
// and reads the topic back with a read_committed consumer (java-v2-support.ts
// checks its report). Proof that v2 was used: the client's own flag
// (TransactionManager.isTransactionV2Enabled), the producer epoch rising by one
// per transaction end (only EndTxn v5 bumps it), and on Runnel the broker's
// request counters: EndTxn and TxnOffsetCommit requests but not a single
// AddPartitionsToTxn or AddOffsetsToTxn. Runs against Apache Kafka too
// (RUNNEL_TEST_TARGET=kafka), where the request counters are not read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertOk, runJava } from '../../helpers/java.js';
import { freePort } from '../../helpers/procs.js';
import { startTarget, type Target } from '../../helpers/target.js';
import { anyRequests, compileTxnV2, requestCount, runAndCheckTxnV2 } from './java-v2-support.js';

const TRANSACTIONS = 9;
let target: Target;
let httpPort = 0;
let classes: Promise<string>;

beforeAll(async () => {
  classes = compileTxnV2();
  httpPort = await freePort();
  target = await startTarget({ runnel: { args: ['--set', `http.port=${httpPort}`] } });
  await classes;
}, 300_000);

afterAll(async () => {
  await target?.stop();
});

describe('a Kafka 4.x transactional producer with transactions v2', () => {
  it('kafka-features describe lists transaction.version as on Kafka 4.x: supported 0-2, finalized at 2', async () => {
    // Admin.describeFeatures reads the features of an ApiVersions answer, as the producer does.
    const r = assertOk('kafka-features describe', await runJava('org.apache.kafka.tools.FeatureCommand', ['--bootstrap-server', target.bootstrap, 'describe']));
    expect(r.stdout).toMatch(/^Feature: transaction\.version\s+SupportedMinVersion: 0\s+SupportedMaxVersion: 2\s+FinalizedVersionLevel: 2\s+Epoch: \d+\s*$/m);
  }, 60_000);

  it('commits and aborts with an epoch bump per transaction; read_committed sees exactly the committed records', async () => {
    await runAndCheckTxnV2(await classes, target.bootstrap, { topic: 'txn-v2', transactionalId: 'txn-v2-producer', group: 'txn-v2-group', transactions: TRANSACTIONS, partitions: 3 });
    if (target.kind !== 'runnel') return;
    expect(await requestCount(httpPort, 'EndTxn')).toBe(TRANSACTIONS);
    expect(await requestCount(httpPort, 'TxnOffsetCommit')).toBe(3);
    // Transactions v2: the partitions and the group joined the transactions through Produce v12 and TxnOffsetCommit v5.
    expect(await anyRequests(httpPort, 'AddPartitionsToTxn')).toBe(false);
    expect(await anyRequests(httpPort, 'AddOffsetsToTxn')).toBe(false);
  }, 120_000);
});
