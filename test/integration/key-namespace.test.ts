// Topic names and group ids cannot reach internal keys (key layout 2). In
// layout 1 a topic named `c` shared `rn:{c/0}:leader` with coordinator slot 0
// (hundreds of leadership changes in seconds, every group rebalanced) and a
// topic named `g` shared `rn:{g/0}:meta` with group `0`, so deleting group `0`
// wiped partition g/0's meta hash, archiver watermark included.
import kafkajs from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { useBroker } from './broker-fixture.js';
import { Keys } from '../../common/keys.js';

const { Kafka, logLevel } = kafkajs;
const fx = useBroker({ args: ['--set', 'group.initial.rebalance.delay.ms=0'] });

const keys = new Keys('rn');
const gMeta = keys.meta({ topic: 'g', partition: 0 });
const cMeta = keys.meta({ topic: 'c', partition: 0 });
const bulk = (reply: string): string | null => (reply.startsWith('$-1') ? null : reply.split('\r\n')[1] ?? null);

describe('key namespaces', () => {
  it('topics named c, g and t and a group named 0 keep their own keys', async () => {
    const kafka = new Kafka({ clientId: 'ns', brokers: [fx.broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 10 } });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: ['c', 'g', 't'].map((topic) => ({ topic, numPartitions: 2 })) });
    const producer = kafka.producer();
    await producer.connect();
    for (const topic of ['c', 'g', 't']) {
      await producer.send({ topic, messages: [0, 1].flatMap((partition) => Array.from({ length: 5 }, (_, i) => ({ partition, value: `${topic}-${partition}-${i}` }))) });
    }
    await producer.disconnect();

    // The archiver's watermark on g/0 (what group deletion used to wipe) and its epoch.
    await fx.redis.command(`HSET ${gMeta} archived 3`);
    const epochBefore = bulk(await fx.redis.command(`HGET ${cMeta} leaderEpoch`));
    expect(Number(epochBefore)).toBeGreaterThan(0);

    // Group `0`: commit, then delete it.
    await admin.setOffsets({ groupId: '0', topic: 'g', partitions: [{ partition: 0, offset: '2' }] });
    const fetched = await admin.fetchOffsets({ groupId: '0', topics: ['g'] });
    expect(fetched[0]!.partitions.find((p) => p.partition === 0)!.offset).toBe('2');
    await admin.deleteGroups(['0']);

    // Let several leadership ticks pass: a shared lease key would flip leadership back and forth.
    await new Promise((r) => setTimeout(r, 3000));
    expect(bulk(await fx.redis.command(`HGET ${gMeta} archived`))).toBe('3');
    expect(bulk(await fx.redis.command(`HGET ${gMeta} next`))).toBe('5');
    expect(bulk(await fx.redis.command(`HGET ${cMeta} leaderEpoch`))).toBe(epochBefore);

    // Every record is still readable at its offset.
    const consumer = kafka.consumer({ groupId: 'ns-reader' });
    await consumer.connect();
    await consumer.subscribe({ topics: ['c', 'g', 't'], fromBeginning: true });
    const got: string[] = [];
    await consumer.run({ eachMessage: async ({ topic, partition, message }) => { got.push(`${topic}/${partition}@${message.offset}=${message.value}`); } });
    const deadline = Date.now() + 30_000;
    while (got.length < 30 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await consumer.disconnect();
    await admin.disconnect();
    const want = ['c', 'g', 't'].flatMap((topic) => [0, 1].flatMap((p) => Array.from({ length: 5 }, (_, i) => `${topic}/${p}@${i}=${topic}-${p}-${i}`)));
    expect(got.sort()).toEqual(want.sort());
  });
});
