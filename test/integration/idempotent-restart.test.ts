// Issue 8: idempotent-producer state survives a broker SIGKILL, however many
// batches other producers (or the same one) wrote since.
//
// Wire level, one partition:
//   S  producer S writes one batch (seq 0..9);
//   then 2500 batches from 5 other idempotent producers and 2101 batches of
//   producer T (seq continues), interleaved;
//   SIGKILL the broker, start it again;
//   S's batch resent exactly (same pid/epoch/seq)  -> NONE, original base offset, stored once
//   T's last batch resent                          -> NONE, original base offset
//   T's 5th-newest batch resent                    -> NONE, original base offset (Runnel keeps 5 batches;
//                                                     Kafka 4.4 after an unclean restart: OUT_OF_ORDER_SEQUENCE_NUMBER)
//   T's 6th-newest batch resent                    -> the error Kafka gives (OUT_OF_ORDER_SEQUENCE_NUMBER)
//   T and S continue with the next sequence        -> appended at the log end
// The log must hold every batch exactly once, at its acknowledged offset.
// RUNNEL_TEST_TARGET=kafka runs the same against Apache Kafka (SIGKILL and
// restart of the Kafka JVM on its data dir).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InitProducerId } from '../../broker/src/protocol/messages/init-producer-id.js';
import { ErrorCode } from '../../common/errors.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../helpers/runnel.js';
import { startKafka, type KafkaBroker } from '../helpers/kafka.js';
import { sleep, type ManagedProcess } from '../helpers/procs.js';
import { targetKindFromEnv } from '../helpers/target.js';
import { WireClient } from '../helpers/wire.js';
import { buildBatch } from '../helpers/batches.js';
import { killAndRestartKafka, readAll, verifyLog, wireCreateTopic, wireProduce, type AckedRecord, type ProduceResult } from '../helpers/faults.js';

const kind = targetKindFromEnv();
const TOPIC = 'idem-restart';
const OTHERS = 5;
const OTHER_BATCHES = 500; // per other producer: 2500 in all
const T_BATCHES = 2101;

let redis: RedisServer | undefined;
let runnel: RunnelBroker | undefined;
let kafka: KafkaBroker | undefined;
let kafkaRestarted: ManagedProcess | undefined;
let port = 0;

beforeAll(async () => {
  if (kind === 'kafka') {
    kafka = await startKafka();
    port = kafka.port;
  } else {
    redis = await startRedis();
    runnel = await startRunnel({ redisUrl: redis.url });
    port = runnel.port;
  }
});

afterAll(async () => {
  await runnel?.stop().catch(() => undefined);
  await redis?.stop().catch(() => undefined);
  await kafkaRestarted?.stop(30_000);
  await kafka?.stop().catch(() => undefined);
});

async function crashAndRestart(): Promise<void> {
  if (kafka) kafkaRestarted = await killAndRestartKafka(kafka);
  else {
    await runnel!.kill();
    await runnel!.restart();
  }
}

const bootstrap = (): string => `127.0.0.1:${port}`;

interface Producer { id: number; epoch: number }

async function initProducer(c: WireClient): Promise<Producer> {
  // Kafka answers COORDINATOR_LOAD_IN_PROGRESS / COORDINATOR_NOT_AVAILABLE right after start-up
  let r = await c.request(InitProducerId, 4, { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 });
  for (let i = 0; i < 150 && [14, 15, 16].includes(r.errorCode); i++) {
    await sleep(200);
    r = await c.request(InitProducerId, 4, { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 });
  }
  expect(r.errorCode).toBe(0);
  return { id: Number(r.producerId), epoch: r.producerEpoch };
}

/** Batch `n` of a producer: `size` records, values `<tag>-<n>-<i>`, sequences n*size .. */
function batchOf(p: Producer, tag: string, n: number, size: number): Buffer {
  const recs = Array.from({ length: size }, (_, i) => ({ key: Buffer.from(tag), value: Buffer.from(`${tag}-${n}-${i}`) }));
  return buildBatch(recs, { producerId: p.id, producerEpoch: p.epoch, baseSequence: n * size });
}

const RETRIABLE = new Set<number>([ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.KAFKA_STORAGE_ERROR, ErrorCode.REQUEST_TIMED_OUT, ErrorCode.NOT_ENOUGH_REPLICAS]);

/**
 * Sends one batch, retrying (the same bytes: same pid/epoch/sequence) on
 * retriable errors and connection failures, as a producer does, for up to 60 s.
 */
async function send(conn: { c: WireClient }, batch: Buffer): Promise<ProduceResult> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const r = await wireProduce(conn.c, TOPIC, 0, Buffer.from(batch), -1);
      if (!RETRIABLE.has(r.errorCode) || Date.now() > deadline) return r;
    } catch (e) {
      if (Date.now() > deadline) throw e;
      conn.c.close();
      await sleep(200);
      conn.c = await WireClient.connect(port).catch(async () => { await sleep(500); return WireClient.connect(port); });
      continue;
    }
    await sleep(200);
  }
}

function acked(tag: string, n: number, size: number, base: number): AckedRecord[] {
  return Array.from({ length: size }, (_, i) => ({ partition: 0, offset: base + i, key: tag, value: `${tag}-${n}-${i}` }));
}

describe(`idempotent producer state across a broker SIGKILL (${kind})`, () => {
  it('detects retries of S after 4601 later batches, and of the same producer\'s last 5 batches, after a restart', async () => {
    expect(await wireCreateTopic(port, TOPIC, 1)).toBe(0);
    const conn = { c: await WireClient.connect(port) };
    const all: AckedRecord[] = [];

    // S: one batch of 10 records
    const s = await initProducer(conn.c);
    const sBatch = batchOf(s, 'S', 0, 10);
    const sFirst = await send(conn, sBatch);
    expect(sFirst.errorCode).toBe(0);
    all.push(...acked('S', 0, 10, sFirst.baseOffset));

    // 2500 batches from 5 other producers, interleaved with 2101 batches of T
    const t = await initProducer(conn.c);
    const tBase: number[] = [];
    const writers: Promise<void>[] = [];
    const started = Date.now();
    for (let k = 0; k < OTHERS; k++) {
      writers.push((async () => {
        const oc = { c: await WireClient.connect(port) };
        const o = await initProducer(oc.c);
        for (let n = 0; n < OTHER_BATCHES; n++) {
          const r = await send(oc, batchOf(o, `O${k}`, n, 2));
          expect(r.errorCode).toBe(0);
          all.push(...acked(`O${k}`, n, 2, r.baseOffset));
        }
        oc.c.close();
      })());
    }
    writers.push((async () => {
      const tc = { c: await WireClient.connect(port) };
      for (let n = 0; n < T_BATCHES; n++) {
        const r = await send(tc, batchOf(t, 'T', n, 1));
        expect(r.errorCode).toBe(0);
        tBase[n] = r.baseOffset;
        all.push(...acked('T', n, 1, r.baseOffset));
      }
      tc.c.close();
    })());
    await Promise.all(writers);
    console.log(`${OTHERS * OTHER_BATCHES + T_BATCHES} batches after S in ${Date.now() - started} ms`);

    await crashAndRestart();

    // S resent exactly: a duplicate, answered with the original offset
    const sRetry = await send(conn, sBatch);
    expect(sRetry, 'retry of S after the restart').toMatchObject({ errorCode: 0, baseOffset: sFirst.baseOffset });

    // T's last batch and its 5th-newest: duplicates with their original offsets
    const last = T_BATCHES - 1;
    expect(await send(conn, batchOf(t, 'T', last, 1)), 'retry of T\'s last batch').toMatchObject({ errorCode: 0, baseOffset: tBase[last] });
    // Runnel persists the last 5 batches per producer (rn:p:{t/p}:producers), so the 5th-newest is
    // still a duplicate. Apache Kafka 4.4 after an unclean restart only recognises the newest batch
    // (measured: OUT_OF_ORDER_SEQUENCE_NUMBER here); either way it must not be appended again.
    const fifth = await send(conn, batchOf(t, 'T', last - 4, 1));
    console.log(`retry of T's 5th-newest batch: error ${fifth.errorCode}, base ${fifth.baseOffset} (original ${tBase[last - 4]})`);
    if (kind === 'kafka') expect(fifth.errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    else expect(fifth, 'retry of T\'s 5th-newest batch').toMatchObject({ errorCode: 0, baseOffset: tBase[last - 4] });
    // the 6th-newest is no longer remembered (Kafka keeps 5 batches per producer)
    const older = await send(conn, batchOf(t, 'T', last - 5, 1));
    console.log(`retry of T's 6th-newest batch: error ${older.errorCode} (${older.errorMessage})`);
    expect(older.errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);

    // both continue with their next sequence, appended at the log end
    const tNext = await send(conn, batchOf(t, 'T', T_BATCHES, 1));
    expect(tNext.errorCode).toBe(0);
    all.push(...acked('T', T_BATCHES, 1, tNext.baseOffset));
    const sNext = await send(conn, batchOf(s, 'S', 1, 10));
    expect(sNext.errorCode).toBe(0);
    all.push(...acked('S', 1, 10, sNext.baseOffset));
    conn.c.close();

    const total = 20 + OTHERS * OTHER_BATCHES * 2 + T_BATCHES + 1;
    expect(tNext.baseOffset).toBe(total - 11);
    expect(sNext.baseOffset).toBe(total - 10);

    const log = await readAll(bootstrap(), TOPIC);
    expect(verifyLog(log, all)).toEqual([]);
    expect(log.length).toBe(total);
  });
});
