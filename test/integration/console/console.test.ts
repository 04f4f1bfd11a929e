// The web console (broker/src/http/console) in a real headless Chromium
// against a live broker: KafkaJS produces JSON values with headers to a
// 3-partition topic, a group has committed offsets below the high watermarks
// and a live member, `runnel archiver` commits the topics to a local Delta
// lake. Each page is checked for what it must show: broker ids and leaders,
// partitions and high watermarks equal to what was produced, the lake table as
// its Delta log says, lag = produced - committed, the records with JSON
// pretty-printed and bytes escaped. Keys, values, headers, a group id and a
// topic parameter carrying markup stay text (no element, no script run).
// Bad `n` values get a 400 naming the parameter.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import kafkajs from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatBytes } from '../../../broker/src/http/console/format.js';
import { luaSource } from '../../../common/redis/lua.js';
import { Keys } from '../../../common/keys.js';
import { openRedis } from '../../../common/redis/connect.js';
import { dumpDom, screenshot } from '../../helpers/chromium.js';
import { commitSimpleOffsets } from '../../helpers/wire.js';
import { freePort, spawnManaged, waitFor, type ManagedProcess } from '../../helpers/procs.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { RUNNEL_CLI, startRunnel, type RunnelBroker } from '../../helpers/runnel.js';

const { Kafka, logLevel } = kafkajs;
const TOPIC = 'orders';
const BROWSE = 'browse';
const GROUP = 'billing';
const XSS_GROUP = '<b id="xss-g">grp</b>';
const PRODUCED = [5, 3, 4];
const COMMITTED = [2, 3, 1];
const MARKUP_VALUE = '<script>document.body.dataset.pwned="1"</script>';
const MARKUP_KEY = '<img src=x onerror="document.body.dataset.pwned=1">';

let redis: RedisServer;
let broker: RunnelBroker;
let archiver: ManagedProcess | null = null;
let httpPort: number;
let lake: string;
let base: string;
const kafka = (): InstanceType<typeof Kafka> => new Kafka({ clientId: 'console-test', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
let consumer: ReturnType<InstanceType<typeof Kafka>['consumer']> | null = null;

beforeAll(async () => {
  httpPort = await freePort();
  base = `http://127.0.0.1:${httpPort}`;
  lake = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-console-lake-'));
  redis = await startRedis();
  broker = await startRunnel({ redisUrl: redis.url, args: ['--set', `http.port=${httpPort}`, '--set', 'group.initial.rebalance.delay.ms=0', '--set', 'offsets.topic.num.partitions=4'] });
  const admin = kafka().admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 3 }, { topic: BROWSE, numPartitions: 1 }], waitForLeaders: true });
  const producer = kafka().producer();
  await producer.connect();
  await producer.send({
    topic: TOPIC,
    messages: PRODUCED.flatMap((n, partition) => Array.from({ length: n }, (_, i) => ({
      partition, key: `order-${partition}-${i}`, value: JSON.stringify({ order: i, partition, items: ['a', 'b'] }), headers: { source: 'console-test' },
    }))),
  });
  await producer.send({
    topic: BROWSE,
    messages: [
      { key: MARKUP_KEY, value: MARKUP_VALUE, headers: { '<i id="xss-hk">hk</i>': '<b id="xss-hv">v</b>' } },
      { key: 'json', value: '{"id":7,"name":"widget"}', headers: { trace: 'abc-123' } },
      { key: 'bin', value: Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe]) },
      { key: 'gone', value: null },
    ],
  });
  await producer.disconnect();
  // Offsets committed as a simple (memberless) group commits them.
  expect(await commitSimpleOffsets(broker.port, GROUP, TOPIC, COMMITTED)).toEqual([0, 0, 0]);
  expect(await commitSimpleOffsets(broker.port, XSS_GROUP, BROWSE, [1])).toEqual([0]);
  // A live member: reads from the committed offsets and never commits (the lag stays produced - committed).
  consumer = kafka().consumer({ groupId: GROUP, sessionTimeout: 10_000, maxWaitTimeInMs: 1000 });
  await consumer.connect();
  await consumer.subscribe({ topic: TOPIC });
  await consumer.run({ autoCommit: false, eachMessage: async () => undefined });
  await waitFor('the group is stable', async () => (await admin.describeGroups([GROUP])).groups[0]?.state === 'Stable', { timeoutMs: 15_000, intervalMs: 200 });
  await admin.disconnect();
  archiver = spawnManaged('console-archiver', process.execPath, [RUNNEL_CLI, 'archiver', '--redis', redis.url, '--lake', `file://${lake}`], {
    env: { ...process.env, RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '200' },
  });
}, 60_000);

afterAll(async () => {
  await consumer?.disconnect().catch(() => undefined);
  await archiver?.stop(10_000).catch(() => undefined);
  await broker?.stop();
  await redis?.stop();
  fs.rmSync(lake, { recursive: true, force: true });
});

/** Text of an HTML fragment (tags dropped, the serializer's entities decoded). */
const text = (s: string): string => s.replace(/<[^>]*>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&').trim();

/** Rows (cell texts) of the tables in `dom`, table by table. */
function tables(dom: string): string[][][] {
  return [...dom.matchAll(/<table>([\s\S]*?)<\/table>/g)].map((t) => [...t[1]!.matchAll(/<tr>([\s\S]*?)<\/tr>/g)]
    .map((r) => [...r[1]!.matchAll(/<t[dh][^>]*>([\s\S]*?)<\/t[dh]>/g)].map((c) => text(c[1]!))));
}

function section(dom: string, id: string): string {
  const m = new RegExp(`<section id="${id}">([\\s\\S]*?)</section>`).exec(dom);
  if (!m) throw new Error(`no section ${id} in ${dom.slice(0, 2000)}`);
  return m[1]!;
}

/** What the Delta log in the lake says of a table: version, live files, their bytes. */
function deltaLog(topic: string): { version: number; files: number; bytes: number } {
  const dir = path.join(lake, topic, '_delta_log');
  const commits = fs.readdirSync(dir).filter((f) => /^\d{20}\.json$/.test(f)).sort();
  const live = new Map<string, number>();
  for (const c of commits) {
    for (const line of fs.readFileSync(path.join(dir, c), 'utf8').split('\n').filter(Boolean)) {
      const a = JSON.parse(line) as { add?: { path: string; size: number }; remove?: { path: string } };
      if (a.add) live.set(a.add.path, a.add.size);
      if (a.remove) live.delete(a.remove.path);
    }
  }
  return { version: commits.length - 1, files: live.size, bytes: [...live.values()].reduce((s, b) => s + b, 0) };
}

describe('web console in headless chromium', () => {
  it('/ redirects to /console, which lists the broker and the partition leaders', async () => {
    const r = await fetch(`${base}/`, { redirect: 'manual' });
    expect(r.status).toBe(302);
    expect(r.headers.get('location')).toBe('/console');
    const dom = await dumpDom(`${base}/`);
    const [brokers, leaders] = tables(dom);
    expect(brokers![0]).toEqual(['node id', 'address', 'rack', 'lease', 'lease expires', 'partitions led', 'instance']);
    expect(brokers!.slice(1).map((row) => row.slice(0, 4))).toEqual([['1', `127.0.0.1:${broker.port}`, '-', 'live']]);
    expect(leaders!.slice(1).filter((row) => row[0] === TOPIC)).toEqual(PRODUCED.map((_, p) => [TOPIC, String(p), '1', expect.stringMatching(/^\d+$/)]));
  });

  it('topics: partitions, high watermarks as produced, and the lake table as the Delta log says', async () => {
    // The archiver commits every partition; its published summary then matches the table in the lake.
    await waitFor('orders archived', async () => {
      const page = await (await fetch(`${base}/console/topics`)).text();
      const rows = tables(section(page, `t-${TOPIC}`))[0]!.slice(1);
      return rows.length === 3 && rows.every((row) => row[6] === String(PRODUCED[Number(row[0])]! - 1)) && page.includes('Delta version');
    }, { proc: archiver!, timeoutMs: 15_000, intervalMs: 250 });
    const dom = await dumpDom(`${base}/console/topics`);
    const orders = section(dom, `t-${TOPIC}`);
    expect(text(orders)).toMatch(/^orders \(3 partitions\)/);
    const rows = tables(orders)[0]!;
    // 'in Redis from' is the log start too: the topic is not tiered (test/integration/tiered/ covers tiered topics).
    expect(rows[0]).toEqual(['partition', 'leader', 'log start', 'in Redis from', 'high watermark', 'bytes in Redis', 'archived watermark', 'lake lag', '']);
    expect(rows.slice(1).map((row) => [row[0], row[1], row[2], row[3], row[4], row[6], row[7]])).toEqual(
      PRODUCED.map((n, p) => [String(p), '1', '0', '0', String(n), String(n - 1), '0']));
    for (const row of rows.slice(1)) expect(row[5]).toMatch(/^[\d.]+ (B|KiB)$/);
    const d = deltaLog(TOPIC);
    expect(d.files).toBeGreaterThan(0);
    const lakeLine = text(/<p>Lake table[\s\S]*?<\/p>/.exec(orders)![0]);
    expect(lakeLine).toContain(`Delta version ${d.version}, ${d.files} files, `);
    expect(lakeLine).toContain(`file://${lake}/${TOPIC}`);
    expect(lakeLine).toContain(`${d.files} files, ${formatBytes(d.bytes)}, last commit`);
    expect(lakeLine).toMatch(/last commit \d{4}-\d\d-\d\dT/);
    await archiver!.stop(10_000); // done: its polling only competes with the browser for CPU
    // The published summary only moves forward: an older version's summary (a slower archiver) is refused.
    const { client } = await openRedis(redis.url);
    try {
      const publish = (v: number) => client.eval(luaSource(new URL('../../../archiver/src/lua/', import.meta.url), 'publish-lake-table'), 1, new Keys('rn').lakeTables, TOPIC, String(v), JSON.stringify({ version: v, files: 99, bytes: 1, lastCommitMs: 0, table: 'x' }));
      expect(await publish(d.version - 1)).toBe(0);
      expect(await publish(d.version)).toBe(0);
      expect(text(section(await (await fetch(`${base}/console/topics`)).text(), `t-${TOPIC}`))).toContain(`Delta version ${d.version}, ${d.files} files`);
    } finally {
      client.disconnect();
    }
    // Internal topics are hidden unless asked for.
    expect(dom).not.toContain('id="t-__consumer_offsets"');
    await screenshot(`${base}/console/topics`, path.join(process.env.RUNNEL_CONSOLE_SCREENSHOTS ?? lake, 'console-topics.png'), 1200, 760);
    expect(fs.readFileSync(path.join(process.env.RUNNEL_CONSOLE_SCREENSHOTS ?? lake, 'console-topics.png')).subarray(1, 4).toString()).toBe('PNG');
  });

  it('consumer groups: state, members with their assignment, lag = produced - committed', async () => {
    const list = await dumpDom(`${base}/console/groups`);
    const [groups] = tables(list);
    expect(groups![0]).toEqual(['group', 'state', 'assignor', 'members', 'partitions', 'lag']);
    const total = PRODUCED.reduce((s, n, p) => s + n - COMMITTED[p]!, 0);
    expect(groups!.find((row) => row[0] === GROUP)).toEqual([GROUP, 'Stable', expect.any(String), '1', '3', String(total)]);
    // A group id holding markup is text in the page (one committed offset: lag 4 - 1).
    expect(groups!.find((row) => row[0] === XSS_GROUP)).toEqual([XSS_GROUP, 'Empty', '-', '0', '1', '3']);
    expect(list).not.toContain('<b id="xss-g">');
    expect(list).toContain('&lt;b id="xss-g"&gt;grp&lt;/b&gt;');

    const dom = await dumpDom(`${base}/console/group?id=${GROUP}`);
    expect(text(/<p>State[\s\S]*?<\/p>/.exec(dom)![0])).toMatch(new RegExp(`^State Stable, generation \\d+, protocol consumer / \\w+, total lag ${total}$`));
    const [members, offsets] = tables(dom);
    expect(members!.slice(1).map((row) => [row[0], row[1], row[3]])).toEqual([['console-test', expect.stringMatching(/127\.0\.0\.1/), `${TOPIC}: 0, 1, 2`]]);
    expect(offsets!.slice(1)).toEqual(PRODUCED.map((n, p) => [TOPIC, String(p), String(COMMITTED[p]), String(n), String(n - COMMITTED[p]!), 'console-test']));
    if (process.env.RUNNEL_CONSOLE_SCREENSHOTS) await screenshot(`${base}/console/group?id=${GROUP}`, path.join(process.env.RUNNEL_CONSOLE_SCREENSHOTS, 'console-group.png'), 1200, 560);
  });

  it('message browser: the last records with JSON pretty-printed, bytes escaped, markup kept as text', async () => {
    const dom = await dumpDom(`${base}/console/messages?topic=${BROWSE}&partition=0`);
    expect(dom).not.toContain('data-pwned');
    expect(dom).not.toMatch(/<[ib] id="xss-h[kv]">/);
    expect(dom).not.toMatch(/<script|<img/);
    const [rows] = tables(dom);
    expect(rows![0]).toEqual(['offset', 'timestamp', 'key', 'value', 'headers']);
    const body = rows!.slice(1);
    expect(body.map((row) => row[0])).toEqual(['0', '1', '2', '3']);
    for (const row of body) expect(row[1]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(body[0]!.slice(2)).toEqual([MARKUP_KEY, MARKUP_VALUE, '<i id="xss-hk">hk</i>: <b id="xss-hv">v</b>']);
    expect(body[1]!.slice(2)).toEqual(['json', '{\n  "id": 7,\n  "name": "widget"\n}', 'trace: abc-123']);
    expect(body[2]!.slice(2)).toEqual(['bin', '\\x00\\x01\\x02\\xff\\xfe', '-']);
    expect(body[3]!.slice(2)).toEqual(['gone', 'null', '-']);

    const last = tables(await dumpDom(`${base}/console/messages?topic=${TOPIC}&partition=0&n=2`))[0]!.slice(1);
    expect(last.map((row) => [row[0], row[2], JSON.parse(row[3]!)])).toEqual([3, 4].map((i) => [String(i), `order-0-${i}`, { order: i, partition: 0, items: ['a', 'b'] }]));
    expect(last.every((row) => row[4] === 'source: console-test')).toBe(true);
  });

  it('bad input: 400 naming the parameter, unknown partitions 404, markup in the topic parameter stays text', async () => {
    for (const n of ['0', '501', 'abc', '1.5', '-1']) {
      const r = await fetch(`${base}/console/messages?topic=${TOPIC}&n=${n}`);
      expect(r.status, n).toBe(400);
      expect(text(await r.text())).toContain(`n must be an integer from 1 to 500 (got "${n}")`);
    }
    expect((await fetch(`${base}/console/messages?topic=${TOPIC}&partition=3`)).status).toBe(404);
    expect((await fetch(`${base}/console/group?id=nope`)).status).toBe(404);
    const dom = await dumpDom(`${base}/console/messages?topic=${encodeURIComponent('<script>document.title="x"</script>')}`);
    expect(dom).not.toMatch(/<script/);
    expect(text(/<p class="error"[^>]*>([\s\S]*?)<\/p>/.exec(dom)![1]!)).toMatch(/^topic must be a topic name/);
    // Read-only: no route answers a write.
    expect((await fetch(`${base}/console/topics`, { method: 'POST' })).status).toBe(404);
  });
});
