// Captures authentic request frames from real clients for the dispatcher's
// golden tests (test/broker/dispatch/golden/). Not a test: run it once, by
// hand, when a fixture needs refreshing (a new client version, a new API):
//
//   npm run build && npx vitest run --config test/setup/capture.vitest.config.ts
//
// It starts redis-server and a Runnel broker whose listeners are advertised on
// two TCP relays (PLAINTEXT and SASL_PLAINTEXT), so every connection of every
// client passes through a relay. The relays cut the client->broker byte stream
// into frames and keep the first frame of each (client, API, version). Then
// kcat (librdkafka), KafkaJS and Java kafka-clients (Kafka's own tools) run a
// fixed script of work: metadata, topic creation, produce, fetch, consumer
// groups with offset commits, offset lookups, SASL/PLAIN, and Java's admin
// tools (configs, quotas, SCRAM users, ACLs, groups, transactions, log dirs,
// DeleteRecords, topic deletion). The frames and the
// ids and leader epochs of the topics they name (Fetch v13+ names topics by
// id; clients send the leader epoch they saw) are written to
// test/broker/dispatch/golden/requests.json.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { expect, it } from 'vitest';
import { startRedis } from '../helpers/redis.js';
import { startRunnel } from '../helpers/runnel.js';
import { HOST, REPO_ROOT, freePort, runCommand } from '../helpers/procs.js';
import { consumerPerf, createTopic, getOffsets, kafkaJarVersion, producerPerf, runJava } from '../helpers/java.js';
import { WireClient } from '../helpers/wire.js';
import { Metadata } from '../../broker/src/protocol/messages/metadata.js';
import { CreateTopics } from '../../broker/src/protocol/messages/create-topics.js';

const OUT = path.join(REPO_ROOT, 'test', 'broker', 'dispatch', 'golden', 'requests.json');
const JAAS = 'org.apache.kafka.common.security.plain.PlainLoginModule required user_admin="admin-secret";';
/** Topics the clients produce to and fetch from; created beforehand, straight on the broker (not captured). */
const DATA_TOPICS = ['golden-kcat', 'golden-kafkajs', 'golden-java', 'golden-txn-out'];

export interface CapturedFrame {
  client: string;
  apiKey: number;
  apiVersion: number;
  /** The whole frame, size prefix included. */
  hex: string;
}

/** The client whose commands run now; connections accepted meanwhile carry its name. */
let current = 'none';
const frames = new Map<string, CapturedFrame>();

/** A relay from `listen` to the broker's `upstream` port that records request frames. */
async function relay(upstream: number): Promise<{ port: number; close(): void }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const label = current;
    const up = net.connect({ host: HOST, port: upstream });
    sockets.add(client).add(up);
    let buf = Buffer.alloc(0);
    client.on('data', (d) => {
      up.write(d);
      buf = Buffer.concat([buf, typeof d === 'string' ? Buffer.from(d) : d]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readInt32BE(0)) {
        const frame = buf.subarray(0, 4 + buf.readInt32BE(0));
        buf = buf.subarray(frame.length);
        const apiKey = frame.readInt16BE(4);
        const apiVersion = frame.readInt16BE(6);
        const key = `${label} ${apiKey} ${apiVersion}`;
        if (!frames.has(key)) frames.set(key, { client: label, apiKey, apiVersion, hex: frame.toString('hex') });
      }
    });
    up.on('data', (d) => client.write(d));
    const end = () => { client.destroy(); up.destroy(); };
    client.on('error', end).on('close', end);
    up.on('error', end).on('close', end);
  });
  await new Promise<void>((r) => server.listen(0, HOST, () => r()));
  return { port: (server.address() as net.AddressInfo).port, close: () => { for (const s of sockets) s.destroy(); server.close(); } };
}

async function kcat(args: string[], input?: string): Promise<void> {
  const r = await runCommand('kcat', args, { input, timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`kcat ${args.join(' ')}: ${r.code}\n${r.stderr}`);
}

/** A KafkaJS script run in its own node process (KafkaJS keeps timers that would hold this one). */
async function kafkajs(body: string): Promise<void> {
  const script = `const { Kafka, logLevel } = require('kafkajs');\n(async () => {\n${body}\n})().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });`;
  const r = await runCommand(process.execPath, ['-e', script], { timeoutMs: 120_000 });
  if (r.code !== 0) throw new Error(`kafkajs: ${r.code}\n${r.stderr}`);
}

/** Java's admin tools, one API or a few each; a tool that fails still sent its requests. */
async function adminTools(bootstrap: string): Promise<void> {
  const bs = ['--bootstrap-server', bootstrap];
  const tool = (cls: string, args: string[]) => runJava(cls, args, { timeoutMs: 60_000 });
  const configs = (args: string[]) => tool('org.apache.kafka.tools.ConfigCommand', [...bs, ...args]);
  const groups = (args: string[]) => tool('org.apache.kafka.tools.consumer.group.ConsumerGroupCommand', [...bs, ...args]);
  // Transactions: InitProducerId with a transactional id, AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit, EndTxn.
  await runJava('org.apache.kafka.tools.TransactionalMessageCopier', [
    '--broker-list', bootstrap, '--input-topic', 'golden-java', '--input-partition', '0', '--output-topic', 'golden-txn-out',
    '--transactional-id', 'golden-txn', '--consumer-group', 'golden-txn-group', '--transaction-size', '10', '--max-messages', '-1', '--use-group-metadata',
  ], { timeoutMs: 60_000 });
  await tool('org.apache.kafka.tools.TransactionsCommand', [...bs, 'list']);
  await tool('org.apache.kafka.tools.TransactionsCommand', [...bs, 'describe', '--transactional-id', 'golden-txn']);
  await tool('org.apache.kafka.tools.TransactionsCommand', [...bs, 'describe-producers', '--topic', 'golden-java', '--partition', '0']);
  await tool('org.apache.kafka.tools.TopicCommand', [...bs, '--describe', '--topic', 'golden-java']);
  await tool('org.apache.kafka.tools.TopicCommand', [...bs, '--alter', '--topic', 'golden-java-created', '--partitions', '3']);
  await configs(['--describe', '--entity-type', 'topics', '--entity-name', 'golden-java']);
  await configs(['--alter', '--entity-type', 'topics', '--entity-name', 'golden-java-created', '--add-config', 'retention.ms=86400000']);
  await configs(['--alter', '--entity-type', 'clients', '--entity-name', 'golden-client', '--add-config', 'producer_byte_rate=1048576']);
  await configs(['--describe', '--entity-type', 'clients', '--entity-name', 'golden-client']);
  await configs(['--alter', '--entity-type', 'users', '--entity-name', 'alice', '--add-config', 'SCRAM-SHA-256=[iterations=8192,password=alice-secret]']);
  await configs(['--describe', '--entity-type', 'users', '--entity-name', 'alice']);
  await tool('org.apache.kafka.tools.AclCommand', [...bs, '--add', '--allow-principal', 'User:alice', '--operation', 'Read', '--topic', 'golden-java']);
  await tool('org.apache.kafka.tools.AclCommand', [...bs, '--list', '--topic', 'golden-java']);
  await tool('org.apache.kafka.tools.AclCommand', [...bs, '--remove', '--force', '--allow-principal', 'User:alice', '--operation', 'Read', '--topic', 'golden-java']);
  await tool('org.apache.kafka.tools.LogDirsCommand', [...bs, '--describe', '--topic-list', 'golden-java']);
  await groups(['--list']);
  await groups(['--describe', '--group', 'golden-java-group']);
  await groups(['--delete-offsets', '--group', 'golden-java-group', '--topic', 'golden-java']);
  await groups(['--delete', '--group', 'golden-java-group']);
  const offsets = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'golden-')), 'offsets.json');
  fs.writeFileSync(offsets, JSON.stringify({ version: 1, partitions: [{ topic: 'golden-java', partition: 0, offset: 1 }] }));
  await tool('org.apache.kafka.tools.DeleteRecordsCommand', [...bs, '--offset-json-file', offsets]);
  await tool('org.apache.kafka.tools.TopicCommand', [...bs, '--delete', '--topic', 'golden-java-created']);
}

it('captures request frames of kcat, KafkaJS and Java kafka-clients', async () => {
  const redis = await startRedis({ cluster: false });
  const plainPort = await freePort();
  const saslPort = await freePort();
  const plain = await relay(plainPort);
  const sasl = await relay(saslPort);
  const broker = await startRunnel({
    redisUrl: redis.url,
    port: plainPort,
    args: [
      `listeners=PLAINTEXT://${HOST}:${plainPort},SASL_PLAINTEXT://${HOST}:${saslPort}`,
      `advertised.listeners=PLAINTEXT://${HOST}:${plain.port},SASL_PLAINTEXT://${HOST}:${sasl.port}`,
      `sasl.jaas.config=${JAAS}`,
      'sasl.enabled.mechanisms=PLAIN',
      // ACLs on, so the ACL APIs answer; the anonymous clients are super users.
      'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
      'super.users=User:ANONYMOUS;User:admin',
    ].flatMap((s) => ['--set', s]),
  });
  const viaRelay = `${HOST}:${plain.port}`;
  const viaSasl = `${HOST}:${sasl.port}`;
  try {
    const direct = await WireClient.connect(plainPort);
    await direct.request(CreateTopics, 5, { topics: DATA_TOPICS.map((name) => ({ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] })), timeoutMs: 10_000, validateOnly: false });

    current = 'kcat';
    await kcat(['-b', viaRelay, '-L']);
    await kcat(['-b', viaRelay, '-P', '-t', 'golden-kcat', '-p', '0', '-K', ':'], 'k1:one\nk2:two\nk3:three\n');
    await kcat(['-b', viaRelay, '-C', '-t', 'golden-kcat', '-p', '0', '-o', 'beginning', '-e', '-q']);
    await kcat(['-b', viaRelay, '-G', 'golden-kcat-group', '-X', 'auto.offset.reset=earliest', '-e', '-q', 'golden-kcat']);
    await kcat(['-b', viaRelay, '-Q', '-t', 'golden-kcat:0:-1']);
    await kcat(['-b', viaSasl, '-X', 'security.protocol=SASL_PLAINTEXT', '-X', 'sasl.mechanisms=PLAIN', '-X', 'sasl.username=admin', '-X', 'sasl.password=admin-secret', '-L']);

    current = 'kafkajs';
    await kafkajs(`
      const kafka = new Kafka({ clientId: 'golden-kafkajs', brokers: ['${viaRelay}'], logLevel: logLevel.NOTHING });
      const admin = kafka.admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic: 'golden-kafkajs-created', numPartitions: 2 }] });
      const producer = kafka.producer();
      await producer.connect();
      await producer.send({ topic: 'golden-kafkajs', messages: [{ key: 'k1', value: 'one' }, { key: 'k2', value: 'two' }] });
      await producer.disconnect();
      const consumer = kafka.consumer({ groupId: 'golden-kafkajs-group' });
      await consumer.connect();
      await consumer.subscribe({ topic: 'golden-kafkajs', fromBeginning: true });
      let seen = 0;
      await new Promise((resolve) => consumer.run({ eachMessage: async () => { if (++seen === 2) resolve(); } }));
      await consumer.disconnect();
      await admin.fetchTopicOffsets('golden-kafkajs');
      await admin.disconnect();
      const saslAdmin = new Kafka({ clientId: 'golden-kafkajs-sasl', brokers: ['${viaSasl}'], logLevel: logLevel.NOTHING, sasl: { mechanism: 'plain', username: 'admin', password: 'admin-secret' } }).admin();
      await saslAdmin.connect();
      await saslAdmin.listTopics();
      await saslAdmin.disconnect();
    `);

    current = 'java';
    await createTopic(viaRelay, 'golden-java-created', 2);
    await producerPerf({ bootstrap: viaRelay, topic: 'golden-java', numRecords: 3, recordSize: 16, timeoutMs: 120_000 });
    await consumerPerf({ bootstrap: viaRelay, topic: 'golden-java', numRecords: 3, group: 'golden-java-group', timeoutMs: 120_000 });
    await getOffsets(viaRelay, 'golden-java', -1);
    await adminTools(viaRelay);
    current = 'none';

    const md = await direct.request(Metadata, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    direct.close();
    // Clients send the leader epoch they saw (Fetch, ListOffsets): the replay's partitions take the same.
    const topics = (md.topics as Array<{ name: string; topicId: string; partitions: Array<{ leaderEpoch: number }> }>)
      .filter((t) => DATA_TOPICS.includes(t.name))
      .map((t) => ({ name: t.name, id: t.topicId, partitions: t.partitions.length, leaderEpoch: t.partitions[0]!.leaderEpoch }))
      .sort((a, b) => a.name.localeCompare(b.name));
    const kafkajsVersion = (createRequire(import.meta.url)('kafkajs/package.json') as { version: string }).version;
    const kcatVersion = (await runCommand('kcat', ['-V'])).stdout.split('\n').find((l) => /librdkafka/.test(l))?.trim() ?? 'unknown';
    const list = [...frames.values()].sort((a, b) => a.client.localeCompare(b.client) || a.apiKey - b.apiKey || a.apiVersion - b.apiVersion);
    expect(list.length).toBeGreaterThan(0);
    fs.writeFileSync(OUT, `${JSON.stringify({ capturedWith: { kcat: kcatVersion, kafkajs: kafkajsVersion, javaKafkaClients: kafkaJarVersion() }, topics, frames: list }, null, 1)}\n`);
    console.log(`[capture] ${list.length} frames -> ${OUT}`);
  } finally {
    current = 'none';
    await broker.stop();
    plain.close();
    sasl.close();
    await redis.stop();
  }
});
