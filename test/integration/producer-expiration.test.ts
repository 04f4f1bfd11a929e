// producer.id.expiration.ms: an idempotent producer silent for that long is
// forgotten, here (the in-memory table) and in Redis (the producers hash,
// removed by the retention pass through lua/expire-producers.lua). It is then
// treated as a new producer (KIP-360: any sequence accepted), as Kafka does
// once it expired the producer's state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InitProducerId } from '../../broker/src/protocol/messages/init-producer-id.js';
import { ErrorCode } from '../../common/errors.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../helpers/runnel.js';
import { WireClient } from '../helpers/wire.js';
import { buildBatch } from '../helpers/batches.js';
import { sleep } from '../helpers/procs.js';
import { wireCreateTopic, wireProduce } from '../helpers/faults.js';
import { Keys } from '../../common/keys.js';

const TOPIC = 'expiring';
const producersKey = new Keys('rn').producers({ topic: TOPIC, partition: 0 });
let redis: RedisServer;
let broker: RunnelBroker;

beforeAll(async () => {
  redis = await startRedis();
  broker = await startRunnel({
    redisUrl: redis.url,
    args: ['--set', 'producer.id.expiration.ms=1500', '--set', 'log.retention.check.interval.ms=300'],
  });
});
afterAll(async () => {
  await broker?.stop();
  await redis?.stop();
});

const batch = (pid: number, seq: number) =>
  buildBatch([{ key: null, value: Buffer.from(`v${seq}`) }], { producerId: pid, producerEpoch: 0, baseSequence: seq });
const hlen = async (): Promise<number> => Number((await redis.command(`HLEN ${producersKey}`)).trim().slice(1));

describe('producer.id.expiration.ms', () => {
  it('keeps a live producer, then forgets a silent one in memory and in Redis', async () => {
    expect(await wireCreateTopic(broker.port, TOPIC, 1)).toBe(0);
    const c = await WireClient.connect(broker.port);
    const init = async (): Promise<number> => Number((await c.request(InitProducerId, 4, { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 })).producerId);
    const silent = await init();
    const live = await init();
    expect((await wireProduce(c, TOPIC, 0, batch(silent, 0))).errorCode).toBe(ErrorCode.NONE);
    expect(await hlen()).toBe(1);
    // Within the expiration time, a gap in sequence is refused: the producer is known.
    expect((await wireProduce(c, TOPIC, 0, batch(silent, 5))).errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);

    // `live` appends every 300 ms while `silent` stays quiet past 1500 ms.
    for (let seq = 0; seq < 10; seq++) {
      expect((await wireProduce(c, TOPIC, 0, batch(live, seq))).errorCode).toBe(ErrorCode.NONE);
      await sleep(300);
    }
    // The retention pass (every 300 ms) removed the silent producer's stored state only.
    const stored = async (pid: number): Promise<boolean> => (await redis.command(`HEXISTS ${producersKey} ${pid}`)).trim() === ':1';
    expect(await stored(live)).toBe(true);
    expect(await stored(silent)).toBe(false);
    expect(await hlen()).toBe(1);
    // Forgotten: treated as new, any sequence is accepted (KIP-360).
    expect((await wireProduce(c, TOPIC, 0, batch(silent, 5))).errorCode).toBe(ErrorCode.NONE);
    // The live producer is still checked.
    expect((await wireProduce(c, TOPIC, 0, batch(live, 42))).errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    c.close();
  });
});
