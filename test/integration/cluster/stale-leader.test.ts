// Issue 8: a stale leader. Broker 1 is SIGSTOPped past its lease while
// produce requests it already dispatched are in flight to Redis, broker 2
// takes its partitions over and appends to them, then broker 1 resumes and
// its delayed appends reach Redis AFTER broker 2's writes. Every acknowledged
// record must be stored exactly once at its acknowledged offset, offsets stay
// dense and unique, each partition's raw stream is one chain of batches
// (base = previous base + count: no overlap, no gap), and the stale appends
// are answered with a retriable error (NOT_LEADER_OR_FOLLOWER), never NONE.
//
// SIGSTOP alone never holds an append that was already dispatched (Redis
// executes it at once, before the takeover; after SIGCONT the stale broker
// checks its lease deadline on new requests and refuses them). So broker 1
// reaches Redis through a relay that is STALLED (bytes held both ways,
// connections open) before the stale produce requests arrive: broker 1 writes
// their appends to its socket (checked in the relay) but Redis executes them
// only when the stall is released, after the takeover. Then broker 1 is also
// SIGSTOPped, longer than its lease. The stall stays well below the append
// connection's 10 s reply watchdog.
//
// Old append fence (XADD <base>-1, refused only at or below the stream's top
// id): the new leader writes one 10-record batch at base N (id N-1); the
// stale appends at N+1..N+7 have larger ids and are accepted and acknowledged
// -> offsets N+1..N+7 twice in the stream. The new fence (epoch and log end
// checked in the same MULTI as the XADD) refuses them all.
//
// Two Runnel brokers share one Redis; the single-node Kafka helper has no
// two-broker mode, so the file is skipped with RUNNEL_TEST_TARGET=kafka.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode, codeName } from '../../../common/errors.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { sleep, waitFor } from '../../helpers/procs.js';
import { targetKindFromEnv } from '../../helpers/target.js';
import { WireClient } from '../../helpers/wire.js';
import { buildBatch } from '../../helpers/batches.js';
import {
  chainProblems, rawLog, rawRecords, readAll, signal, startStallableLink, verifyLog, wireCreateTopic, wireMetadata, wireProduce,
  type AckedRecord, type LogRecord, type StallableLink,
} from '../../helpers/faults.js';

const onKafka = targetKindFromEnv() === 'kafka';
const LEASE_MS = 2000;
const TICK_MS = 250;
const PARTITIONS = 6;
const TOPIC = 'stale';
/** Stale appends held per partition of broker 1 (one record each). */
const HELD = 8;
/** Records in the batch broker 2 writes to each partition it took over, before the held appends land. */
const TAKEOVER_RECORDS = 10;
/** Retriable answers a client may get for an append it must resend elsewhere. */
const RETRIABLE: number[] = [ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.KAFKA_STORAGE_ERROR, ErrorCode.REQUEST_TIMED_OUT, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND];

let redis: RedisServer;
let link: StallableLink;
const brokers = new Map<number, RunnelBroker>();

beforeAll(async () => {
  if (onKafka) return;
  redis = await startRedis();
  link = await startStallableLink(redis.port);
  const args = (id: number): string[] => ['--node-id', String(id), '--set', `broker.lease.ms=${LEASE_MS}`, '--set', `leadership.tick.ms=${TICK_MS}`];
  // Broker 1 (the one that goes stale) reaches Redis through the stallable link.
  brokers.set(1, await startRunnel({ redisUrl: link.url, args: args(1) }));
  brokers.set(2, await startRunnel({ redisUrl: redis.url, args: args(2) }));
});

afterAll(async () => {
  for (const b of brokers.values()) {
    try { process.kill(b.proc().pid, 'SIGCONT'); } catch { /* gone */ }
  }
  link?.release();
  for (const b of brokers.values()) await b.stop().catch(() => undefined);
  await link?.close();
  await redis?.stop();
});

const port = (id: number): number => brokers.get(id)!.port;

type Answer = { errorCode: number; baseOffset: number } | { error: string };

/** Sends one batch (one record per value, key 'wire') without waiting: requests pipeline on the connection. */
function send(c: WireClient, partition: number, values: string[], timeoutMs = 20_000): Promise<Answer> {
  const batch = buildBatch(values.map((v) => ({ key: Buffer.from('wire'), value: Buffer.from(v) })));
  return wireProduce(c, TOPIC, partition, batch, -1, timeoutMs)
    .then((r): Answer => ({ errorCode: r.errorCode, baseOffset: r.baseOffset }))
    .catch((e: unknown): Answer => ({ error: String(e) }));
}

const acked: AckedRecord[] = [];
const ack = (partition: number, values: string[], a: Answer): boolean => {
  if ('error' in a || a.errorCode !== ErrorCode.NONE) return false;
  values.forEach((value, i) => acked.push({ partition, offset: a.baseOffset + i, key: 'wire', value }));
  return true;
};
const show = (a: Answer): string => ('error' in a ? `no answer (${a.error})` : codeName(a.errorCode));

/** Produces one batch to whichever broker leads the partition now, retrying retriable answers like a client. */
async function produceAtLeader(partition: number, values: string[], timeoutMs = 20_000): Promise<void> {
  let last = '';
  await waitFor(`partition ${partition} takes ${values[0]}`, async () => {
    const leader = (await wireMetadata(port(2), TOPIC)).partitions[partition]?.leaderId ?? -1;
    if (leader !== 1 && leader !== 2) return false;
    const c = await WireClient.connect(port(leader));
    try {
      const a = await send(c, partition, values, 5000);
      last = `broker ${leader}: ${show(a)}`;
      if (ack(partition, values, a)) return true;
      if ('errorCode' in a && !RETRIABLE.includes(a.errorCode)) throw new Error(`partition ${partition}: ${last}`);
      return false;
    } finally {
      c.close();
    }
  }, { timeoutMs, intervalMs: 100 }).catch((e: unknown) => { throw new Error(`${String(e)}; last answer ${last}`); });
}

describe.skipIf(onKafka)('stale leader: appends held past the lease reach Redis after the takeover (two Runnel brokers, no Kafka equivalent)', () => {
  it('refuses every stale append: no overlap, no gap, no loss, no duplicate', async () => {
    const started = Date.now();
    expect(await wireCreateTopic(port(2), TOPIC, PARTITIONS)).toBe(0);
    let leaders: number[] = [];
    let previous = '';
    await waitFor('both brokers agree on stable leaders, broker 1 leads something', async () => {
      const a = await wireMetadata(port(1), TOPIC);
      const b = await wireMetadata(port(2), TOPIC);
      const la = a.partitions.map((p) => p.leaderId);
      const seen = JSON.stringify(la);
      const ok = a.brokers.length === 2 && b.brokers.length === 2 && la.length === PARTITIONS && seen === JSON.stringify(b.partitions.map((p) => p.leaderId))
        && la.every((l) => l === 1 || l === 2) && la.includes(1);
      const stable = ok && seen === previous;
      previous = ok ? seen : '';
      leaders = la;
      return stable;
    }, { timeoutMs: 30_000, intervalMs: 300 });
    const victimParts = leaders.flatMap((l, p) => (l === 1 ? [p] : []));
    console.log(`[stale-leader] leaders ${JSON.stringify(leaders)}; broker 1 leads ${JSON.stringify(victimParts)}`);

    // Every partition has acknowledged records first (and is loaded at its leader, so broker 1 appends without reading Redis).
    for (let p = 0; p < PARTITIONS; p++) await produceAtLeader(p, [`warm-${p}-0`, `warm-${p}-1`, `warm-${p}-2`]);

    const toB1 = [await WireClient.connect(port(1)), await WireClient.connect(port(1))];
    const toB2 = await WireClient.connect(port(2));
    const b1 = brokers.get(1)!;

    // 1. Stall broker 1's Redis link, then send it pipelined produce requests: it dispatches them (it still holds its leases)
    //    and writes their appends into the stalled link.
    link.stall();
    const stalledAt = Date.now();
    const stale: Array<{ partition: number; value: string; answer: Promise<Answer> }> = [];
    for (let k = 0; k < HELD; k++) {
      for (const p of victimParts) {
        const value = `stale-p${p}-k${k}#`;
        stale.push({ partition: p, value, answer: send(toB1[k % 2]!, p, [value]) });
      }
    }
    let stallMs = 0;
    let stoppedMs = 0;
    let takeoverMs = 0;
    const takeover: Array<{ partition: number; answer: Answer }> = [];
    try {
      await waitFor('broker 1 wrote every stale append into its stalled Redis link', () => {
        const held = link.heldToServer().toString('latin1');
        return stale.every((s) => held.includes(s.value));
      }, { timeoutMs: 3000, intervalMs: 20 });

      // 2. SIGSTOP broker 1 past its lease: broker 2 takes its partitions over and appends one batch to each.
      signal(b1.proc(), 'SIGSTOP');
      const stoppedAt = Date.now();
      try {
        await waitFor('broker 2 leads every partition', async () => (await wireMetadata(port(2), TOPIC)).partitions.every((p) => p.leaderId === 2),
          { timeoutMs: 6000, intervalMs: 100 });
        takeoverMs = Date.now() - stoppedAt;
        await Promise.all(victimParts.map(async (p) => {
          const values = Array.from({ length: TAKEOVER_RECORDS }, (_, j) => `new-p${p}-${j}#`);
          let a: Answer = { error: 'not sent' };
          for (let attempt = 0; attempt < 20; attempt++) {
            a = await send(toB2, p, values, 3000);
            if (!('errorCode' in a) || a.errorCode !== ErrorCode.NOT_LEADER_OR_FOLLOWER) break;
            await sleep(100);
          }
          ack(p, values, a);
          takeover.push({ partition: p, answer: a });
        }));
        // broker 1 stays stopped clearly longer than its lease
        const more = LEASE_MS + 500 - (Date.now() - stoppedAt);
        if (more > 0) await sleep(more);
        stoppedMs = Date.now() - stoppedAt;
      } finally {
        // 3. The held appends reach Redis now, after broker 2's writes; then broker 1 resumes and reads the replies.
        stallMs = Date.now() - stalledAt;
        link.release();
        signal(b1.proc(), 'SIGCONT');
      }
    } finally {
      link.release();
    }
    const staleAnswers = await Promise.all(stale.map(async (s) => ({ ...s, a: await s.answer })));
    const tally = new Map<string, number>();
    for (const s of staleAnswers) tally.set(show(s.a), (tally.get(show(s.a)) ?? 0) + 1);
    console.log(`[stale-leader] stall ${stallMs} ms, SIGSTOP ${stoppedMs} ms, takeover ${takeoverMs} ms after SIGSTOP; broker 2's takeover batches ${JSON.stringify(takeover.map((t) => `${t.partition}:${show(t.answer)}${'baseOffset' in t.answer ? `@${t.answer.baseOffset}` : ''}`))}; ${stale.length} stale appends answered ${JSON.stringify([...tally])}`);
    expect(takeover.map((t) => `${t.partition}:${show(t.answer)}`), 'broker 2 appended to every partition it took over').toEqual(victimParts.map((p) => `${p}:NONE`));
    expect(stallMs, 'the stall stayed below the append connection\'s 10 s reply watchdog').toBeLessThan(9000);

    // 4. Afterwards every partition takes writes again wherever it is led now (broker 1 gets its partitions back gradually).
    for (let p = 0; p < PARTITIONS; p++) await produceAtLeader(p, [`after-${p}#`]);
    for (const c of [...toB1, toB2]) c.close();

    // The raw streams: one chain of batches each.
    const raw: LogRecord[] = [];
    const chain: Record<string, string[]> = {};
    for (let p = 0; p < PARTITIONS; p++) {
      const entries = await rawLog(redis.url, TOPIC, p);
      const problems = chainProblems(entries);
      if (problems.length) chain[`partition ${p} (${entries.map((e) => `${e.base}+${e.count}`).join(' ')})`] = problems;
      raw.push(...rawRecords(entries).map((r) => ({ partition: p, offset: r.offset, key: r.key ?? '', value: r.value ?? '' })));
    }
    expect(chain, 'raw stream: each batch starts where the previous one ended (no overlap, no gap)').toEqual({});
    // The stale appends were refused with a retriable error, never acknowledged, and none is stored.
    const staleAcked = staleAnswers.filter((s) => 'errorCode' in s.a && s.a.errorCode === ErrorCode.NONE).map((s) => `${s.value} @ ${s.partition}/${'baseOffset' in s.a ? s.a.baseOffset : '?'}`);
    expect(staleAcked, 'stale appends acknowledged by broker 1').toEqual([]);
    expect(staleAnswers.filter((s) => !('errorCode' in s.a) || !RETRIABLE.includes(s.a.errorCode)).map((s) => `${s.value}: ${show(s.a)}`), 'stale appends without a retriable error').toEqual([]);
    const storedValues = new Set(raw.map((r) => r.value));
    expect(stale.filter((s) => storedValues.has(s.value)).map((s) => s.value), 'refused stale appends stored').toEqual([]);
    // Every acknowledged record exactly once at its offset; offsets dense and unique, in Redis and as fetched.
    expect(verifyLog(raw, acked), 'raw streams vs acknowledged').toEqual([]);
    const fetched = await readAll(brokers.get(2)!.bootstrap, TOPIC);
    expect(verifyLog(fetched, acked), 'fetched log vs acknowledged').toEqual([]);
    const line = (r: LogRecord): string => `${r.partition}/${r.offset} ${r.value}`;
    const byPos = (a: LogRecord, b: LogRecord): number => a.partition - b.partition || a.offset - b.offset;
    expect([...fetched].sort(byPos).map(line), 'fetched log vs raw streams').toEqual([...raw].sort(byPos).map(line));
    expect(acked.length).toBe(PARTITIONS * 4 + victimParts.length * TAKEOVER_RECORDS);
    for (const b of brokers.values()) expect(b.proc().running()).toBe(true);
    console.log(`[stale-leader] done in ${Date.now() - started} ms`);
  });
});
