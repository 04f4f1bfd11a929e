// ACL authorization with Kafka's own tools and real clients: ACLs managed with
// `kafka-acls` (AclCommand), enforced against kcat, kafkajs and the Java
// console producer, shared by two brokers through Redis.
//
// Every client here is User:ANONYMOUS (a PLAINTEXT listener), so the cases
// are built around ANONYMOUS: a bootstrap broker on which ANONYMOUS is a
// super user (standing in for an admin's principal) creates the topics and
// grants ANONYMOUS ALTER and DESCRIBE on the cluster (to manage ACLs), then
// two brokers with allow.everyone.if.no.acl.found=false serve the clients.
// The brokers reach each other (transaction markers, KIP-890 verification) as
// ANONYMOUS too: a transaction over both brokers fails until ANONYMOUS is
// granted CLUSTER_ACTION from 127.0.0.1 only, as docs/security.md says to do
// until brokers authenticate.
// Runnel-only (two Runnel brokers on one Redis): skipped with RUNNEL_TEST_TARGET=kafka.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import kafkajs from 'kafkajs';
import { runJava } from '../../helpers/java.js';
import { runCommand, sleep, waitFor } from '../../helpers/procs.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { brokerExit, startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { targetKindFromEnv } from '../../helpers/target.js';

const { Kafka, logLevel } = kafkajs;
const onKafka = targetKindFromEnv() === 'kafka';

const AUTHORIZER = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
const secured = (nodeId: number, superUsers: string, prefix = 'rn') => [
  '--node-id', String(nodeId),
  '--set', `authorizer.class.name=${AUTHORIZER}`,
  '--set', `super.users=${superUsers}`,
  '--set', 'allow.everyone.if.no.acl.found=false',
  '--set', 'group.initial.rebalance.delay.ms=0',
  '--set', `key.prefix=${prefix}`,
];

const kafkaAcls = (bootstrap: string, args: string[]) =>
  runJava('org.apache.kafka.tools.AclCommand', ['--bootstrap-server', bootstrap, ...args], { timeoutMs: 60_000, jvmArgs: ['-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1'] });
const kcat = (args: string[], input?: string, timeoutMs = 15_000) => runCommand('kcat', args, { input, timeoutMs });
const ANON = ['--allow-principal', 'User:ANONYMOUS'];

let redis: RedisServer;
let b1: RunnelBroker;
let b2: RunnelBroker;
let off: RunnelBroker;
let offList: Awaited<ReturnType<typeof kafkaAcls>>;

interface Listed { topic: string; partitions: Array<{ leader: number }> }

/** A Metadata response as kcat -L shows it: the topics and their partitions' leaders. */
async function metadata(bootstrap: string, topic?: string): Promise<Listed[]> {
  const r = await kcat(['-b', bootstrap, '-L', '-J', '-m', '5', ...(topic ? ['-t', topic] : [])]);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { topics: Listed[] }).topics;
}

/** Topic names in a Metadata response for all topics. */
async function listedTopics(bootstrap: string): Promise<string[]> {
  return (await metadata(bootstrap)).map((t) => t.topic).sort();
}

describe.skipIf(onKafka)('ACLs', () => {
beforeAll(async () => {
  redis = await startRedis();
  const admin = await startRunnel({ redisUrl: redis.url, args: secured(9, 'User:admin;User:ANONYMOUS') });
  try {
    const k = new Kafka({ brokers: [admin.bootstrap], clientId: 'acl-setup', logLevel: logLevel.NOTHING });
    const a = k.admin();
    await a.connect();
    await a.createTopics({ topics: [...['pay-eu', 'pay-blocked', 'orders', 'secret'].map((topic) => ({ topic, numPartitions: 1 })), { topic: 'pay-tx', numPartitions: 8 }, { topic: 'pay-tx-x', numPartitions: 8 }] });
    await a.disconnect();
    const p = await kcat(['-b', admin.bootstrap, '-P', '-t', 'orders'], 'o1\no2\no3\n');
    expect(p.code, p.stderr).toBe(0);
    const grants = await Promise.all([
      kafkaAcls(admin.bootstrap, ['--add', ...ANON, '--operation', 'Alter', '--operation', 'Describe', '--cluster']),
      kafkaAcls(admin.bootstrap, ['--add', ...ANON, '--operation', 'Describe', '--group', 'g-describe']),
    ]);
    for (const g of grants) expect(g.code, g.stderr).toBe(0);
  } finally {
    await admin.stop();
  }
  [b1, b2, off] = await Promise.all([
    startRunnel({ redisUrl: redis.url, args: secured(1, 'User:admin') }),
    startRunnel({ redisUrl: redis.url, args: secured(2, 'User:admin') }),
    // Authorization off (no authorizer.class.name), its own key namespace.
    startRunnel({ redisUrl: redis.url, args: ['--node-id', '5', '--set', 'key.prefix=off'] }),
  ]);
  const added = await Promise.all([
    kafkaAcls(b1.bootstrap, ['--add', ...ANON, '--operation', 'Write', '--topic', 'pay-', '--resource-pattern-type', 'prefixed']),
    kafkaAcls(b1.bootstrap, ['--add', ...ANON, '--operation', 'Read', '--topic', 'orders', '--topic', 'pay-tx', '--group', 'g1']),
    kafkaAcls(b1.bootstrap, ['--add', ...ANON, '--operation', 'Write', '--transactional-id', 'pay-tx', '--resource-pattern-type', 'prefixed']),
    kafkaAcls(b1.bootstrap, ['--add', '--deny-principal', 'User:ANONYMOUS', '--operation', 'Write', '--topic', 'pay-blocked']),
    kafkaAcls(off.bootstrap, ['--list']),
  ]);
  offList = added.pop()!;
  for (const r of added) expect(r.code, r.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  await Promise.all([b1?.stop(), b2?.stop(), off?.stop()]);
  await redis?.stop();
});

describe('ACLs (authorizer.class.name set, allow.everyone.if.no.acl.found=false)', () => {
  it('kafka-acls --list on the second broker shows the ACLs added through the first', async () => {
    const r = await kafkaAcls(b2.bootstrap, ['--list']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('ResourcePattern(resourceType=TOPIC, name=pay-, patternType=PREFIXED)');
    expect(r.stdout).toContain('(principal=User:ANONYMOUS, host=*, operation=WRITE, permissionType=ALLOW)');
    expect(r.stdout).toContain('ResourcePattern(resourceType=TOPIC, name=pay-blocked, patternType=LITERAL)');
    expect(r.stdout).toContain('(principal=User:ANONYMOUS, host=*, operation=WRITE, permissionType=DENY)');
    expect(r.stdout).toContain('ResourcePattern(resourceType=GROUP, name=g1, patternType=LITERAL)');
    expect(r.stdout).toContain('ResourcePattern(resourceType=CLUSTER, name=kafka-cluster, patternType=LITERAL)');
  });

  it('produce: a PREFIXED ALLOW lets kcat and the idempotent Java producer write; no ACL or a DENY is TOPIC_AUTHORIZATION_FAILED', async () => {
    const [ok, java, none, denied] = await Promise.all([
      kcat(['-b', b1.bootstrap, '-P', '-t', 'pay-eu'], 'p1\np2\n'),
      // The Java producer is idempotent: InitProducerId passes on WRITE to some topic (no IDEMPOTENT_WRITE needed).
      runJava('org.apache.kafka.tools.ConsoleProducer', ['--bootstrap-server', b1.bootstrap, '--topic', 'pay-eu'], {
        input: 'j1\n', timeoutMs: 60_000, jvmArgs: ['-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1'],
      }),
      kcat(['-b', b1.bootstrap, '-P', '-t', 'orders'], 'x\n'),
      kcat(['-b', b1.bootstrap, '-P', '-t', 'pay-blocked'], 'x\n'),
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(java.code, java.stderr).toBe(0);
    expect(java.stderr).not.toMatch(/Error when sending/);
    // Both landed: ListOffsets needs DESCRIBE, which WRITE implies.
    const end = await kcat(['-b', b1.bootstrap, '-Q', '-t', 'pay-eu:0:-1']);
    expect(end.stdout.trim(), end.stderr).toBe('pay-eu [0] offset 3');
    expect(none.stderr).toMatch(/Topic authorization failed/);
    expect(denied.stderr).toMatch(/Topic authorization failed/);
  });

  it('fetch: READ on orders lets kcat read it; WRITE alone on pay-eu is TOPIC_AUTHORIZATION_FAILED', async () => {
    const [ok, denied] = await Promise.all([
      kcat(['-b', b1.bootstrap, '-C', '-t', 'orders', '-o', 'beginning', '-e', '-q']),
      kcat(['-b', b1.bootstrap, '-C', '-t', 'pay-eu', '-o', 'beginning', '-e', '-q'], undefined, 5_000),
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout.trim().split('\n')).toEqual(['o1', 'o2', 'o3']);
    expect(denied.stderr).toMatch(/Topic authorization failed/);
  });

  it('groups: a group with READ consumes; JoinGroup with DESCRIBE only, and FindCoordinator with nothing, are GROUP_AUTHORIZATION_FAILED', async () => {
    const group = (id: string, timeoutMs: number) => kcat(['-b', b1.bootstrap, '-G', id, '-o', 'beginning', '-e', '-q', '-X', 'session.timeout.ms=6000', 'orders'], undefined, timeoutMs);
    const [ok, describeOnly, none] = await Promise.all([group('g1', 20_000), group('g-describe', 5_000), group('other', 5_000)]);
    expect(ok.stdout.trim().split('\n'), ok.stderr).toEqual(['o1', 'o2', 'o3']);
    expect(describeOnly.stderr).toMatch(/JoinGroup.*(GROUP_AUTHORIZATION_FAILED|Group authorization failed)/);
    expect(none.stderr).toMatch(/FindCoordinator.*GROUP_AUTHORIZATION_FAILED/);
  });

  it('admin: creating a topic without CREATE and deleting one without DELETE are TOPIC_AUTHORIZATION_FAILED', async () => {
    const a = new Kafka({ brokers: [b1.bootstrap], clientId: 'acl-admin', logLevel: logLevel.NOTHING, retry: { retries: 0 } }).admin();
    await a.connect();
    try {
      const created = await a.createTopics({ topics: [{ topic: 'pay-new' }] }).then(() => null, (e: unknown) => e);
      expect((created as { errors?: Array<{ type: string; topic: string }> } | null)?.errors).toEqual([expect.objectContaining({ type: 'TOPIC_AUTHORIZATION_FAILED', topic: 'pay-new' })]);
      const deleted = await a.deleteTopics({ topics: ['orders'] }).then(() => null, (e: unknown) => e);
      expect((deleted as { type?: string } | null)?.type).toBe('TOPIC_AUTHORIZATION_FAILED');
    } finally {
      await a.disconnect();
    }
    expect(await listedTopics(b1.bootstrap)).toContain('orders');
  });

  it('Metadata for all topics hides the topics ANONYMOUS may not DESCRIBE', async () => {
    // orders: READ implies DESCRIBE; pay-*: WRITE implies DESCRIBE (the DENY of WRITE does not deny DESCRIBE).
    expect(await listedTopics(b1.bootstrap)).toEqual(['orders', 'pay-blocked', 'pay-eu', 'pay-tx', 'pay-tx-x']);
  });

  it('transactions: over partitions led by both brokers, CLUSTER_AUTHORIZATION_FAILED until the brokers\' CLUSTER_ACTION grant, then a KafkaJS transaction commits', async () => {
    // Both brokers lead partitions of the topics, so markers and verification go from broker to broker.
    for (const topic of ['pay-tx', 'pay-tx-x']) {
      await waitFor(`${topic} led by both brokers`, async () => new Set((await metadata(b1.bootstrap, topic))[0]!.partitions.map((p) => p.leader)).size === 2, { timeoutMs: 10_000, intervalMs: 200 });
    }
    const k = new Kafka({ brokers: [b1.bootstrap], clientId: 'acl-txn', logLevel: logLevel.NOTHING, retry: { retries: 2 } });
    const transaction = async (transactionalId: string, topic: string) => {
      const producer = k.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      try {
        const tx = await producer.transaction();
        await tx.send({ topic, messages: Array.from({ length: 8 }, (_, i) => ({ value: `t${i}`, partition: i })) });
        await tx.commit();
      } finally {
        await producer.disconnect();
      }
    };
    const refused = await transaction('pay-tx-x', 'pay-tx-x').then(() => null, (e: unknown) => e);
    expect((refused as { type?: string } | null)?.type).toBe('CLUSTER_AUTHORIZATION_FAILED');

    const grant = await kafkaAcls(b1.bootstrap, ['--add', ...ANON, '--allow-host', '127.0.0.1', '--operation', 'ClusterAction', '--cluster']);
    expect(grant.code, grant.stderr).toBe(0);
    await sleep(600); // both brokers reload (every 250 ms)
    await transaction('pay-tx', 'pay-tx');
    const r = await kcat(['-b', b1.bootstrap, '-C', '-t', 'pay-tx', '-o', 'beginning', '-e', '-q', '-X', 'isolation.level=read_committed']);
    expect(r.stdout.trim().split('\n').sort(), r.stderr).toEqual(Array.from({ length: 8 }, (_, i) => `t${i}`));
  });

  it('kafka-acls --remove through one broker takes effect on the other within a second', async () => {
    expect(await listedTopics(b2.bootstrap)).toContain('orders');
    const r = await kafkaAcls(b1.bootstrap, ['--remove', '--force', ...ANON, '--operation', 'Read', '--topic', 'orders']);
    expect(r.code, r.stderr).toBe(0);
    const removedAt = Date.now();
    let seen = await listedTopics(b2.bootstrap);
    while (seen.includes('orders') && Date.now() - removedAt < 3000) {
      await sleep(50);
      seen = await listedTopics(b2.bootstrap);
    }
    expect(seen).not.toContain('orders');
    expect(Date.now() - removedAt).toBeLessThan(1000);
  });
});

describe('authorization off and misconfigured', () => {
  it('without authorizer.class.name, kafka-acls --list fails with SecurityDisabledException', () => {
    expect(offList.code).not.toBe(0);
    expect(offList.stdout + offList.stderr).toMatch(/SecurityDisabledException: No Authorizer is configured/);
  });

  it('an authorizer class Runnel does not provide is refused at start', async () => {
    const { exit, log } = await brokerExit(redis.url, ['authorizer.class.name=com.example.MyAuthorizer', 'key.prefix=bad']);
    expect(exit.code).not.toBe(0);
    expect(log).toContain('authorizer.class.name=com.example.MyAuthorizer is not supported');
  });
});
});
