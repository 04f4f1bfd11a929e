// ACLs name the principal a TLS listener gives a connection: a broker with a
// PLAINTEXT listener (User:ANONYMOUS) and a mutual-TLS listener (the client
// certificate's subject, User:CN=...), super.users=User:CN=admin. The admin
// manages ACLs with kafka-acls over mutual TLS; kcat as CN=alice is allowed
// what her ACL names, ANONYMOUS is not. Certificates made with openssl.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJava } from '../../helpers/java.js';
import { freePort, HOST, runCommand } from '../../helpers/procs.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { issueCert, makeTestPki, type TestPki } from '../../helpers/redis-tls.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { targetKindFromEnv } from '../../helpers/target.js';

const onKafka = targetKindFromEnv() === 'kafka';

let redis: RedisServer;
let broker: RunnelBroker;
let pki: TestPki;
let plainPort: number;
let mtlsPort: number;
let alice: { cert: string; key: string };
let adminProps: string;

/** kcat over mutual TLS with `who`'s certificate. */
const kcatTls = (who: { cert: string; key: string }, args: string[], input?: string) => runCommand('kcat', [
  '-b', `${HOST}:${mtlsPort}`, '-X', 'security.protocol=ssl', '-X', `ssl.ca.location=${pki.caCert}`,
  '-X', `ssl.certificate.location=${who.cert}`, '-X', `ssl.key.location=${who.key}`, ...args,
], { input, timeoutMs: 15_000 });
const kcatPlain = (args: string[], input?: string) => runCommand('kcat', ['-b', `${HOST}:${plainPort}`, ...args], { input, timeoutMs: 15_000 });
const kafkaAcls = (args: string[]) => runJava('org.apache.kafka.tools.AclCommand', ['--bootstrap-server', `${HOST}:${mtlsPort}`, '--command-config', adminProps, ...args], {
  timeoutMs: 60_000, jvmArgs: ['-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1'],
});

describe.skipIf(onKafka)('ACLs with TLS principals', () => {
  beforeAll(async () => {
    pki = await makeTestPki();
    const admin = await issueCert(pki.dir, { name: 'admin', subject: '/CN=admin', usage: 'client' });
    alice = await issueCert(pki.dir, { name: 'alice', subject: '/CN=alice', usage: 'client' });
    const keystore = path.join(pki.dir, 'keystore.pem');
    fs.writeFileSync(keystore, fs.readFileSync(pki.serverKey, 'utf8') + fs.readFileSync(pki.serverCert, 'utf8'));
    const adminStore = path.join(pki.dir, 'admin-keystore.pem');
    fs.writeFileSync(adminStore, fs.readFileSync(admin.key, 'utf8') + fs.readFileSync(admin.cert, 'utf8'));
    adminProps = path.join(pki.dir, 'admin.properties');
    fs.writeFileSync(adminProps, [
      'security.protocol=SSL', 'ssl.truststore.type=PEM', `ssl.truststore.location=${pki.caCert}`,
      'ssl.keystore.type=PEM', `ssl.keystore.location=${adminStore}`, '',
    ].join('\n'));
    redis = await startRedis();
    [plainPort, mtlsPort] = [await freePort(), await freePort()];
    broker = await startRunnel({
      redisUrl: redis.url,
      port: plainPort,
      args: [
        '--set', `listeners=PLAINTEXT://${HOST}:${plainPort},MTLS://${HOST}:${mtlsPort}`,
        '--set', 'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,MTLS:SSL',
        '--set', 'ssl.keystore.type=PEM',
        '--set', `ssl.keystore.location=${keystore}`,
        '--set', 'ssl.client.auth=required',
        '--set', 'ssl.truststore.type=PEM',
        '--set', `ssl.truststore.location=${pki.caCert}`,
        '--set', 'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
        '--set', 'super.users=User:CN=admin',
      ],
    });
    // The admin (a super user) creates the topic and grants alice WRITE and READ on it.
    const created = await kcatTls(admin, ['-P', '-t', 'ledger'], 'a0\n');
    expect(created.code, created.stderr).toBe(0);
    const granted = await kafkaAcls(['--add', '--allow-principal', 'User:CN=alice', '--operation', 'Write', '--operation', 'Read', '--topic', 'ledger']);
    expect(granted.code, granted.stderr).toBe(0);
  }, 60_000);

  afterAll(async () => {
    await broker?.stop();
    await redis?.stop();
    if (pki) fs.rmSync(pki.dir, { recursive: true, force: true });
  });

  it('kafka-acls over mutual TLS as the super user User:CN=admin lists the ACL for User:CN=alice', async () => {
    const r = await kafkaAcls(['--list', '--topic', 'ledger']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('(principal=User:CN=alice, host=*, operation=WRITE, permissionType=ALLOW)');
    expect(r.stdout).toContain('(principal=User:CN=alice, host=*, operation=READ, permissionType=ALLOW)');
  });

  it('kcat with alice\'s certificate writes and reads the topic; ANONYMOUS on PLAINTEXT is TOPIC_AUTHORIZATION_FAILED', async () => {
    const [wrote, plain] = await Promise.all([kcatTls(alice, ['-P', '-t', 'ledger'], 'a1\n'), kcatPlain(['-P', '-t', 'ledger'], 'x\n')]);
    expect(wrote.code, wrote.stderr).toBe(0);
    expect(plain.stderr).toMatch(/Topic authorization failed/);
    const read = await kcatTls(alice, ['-C', '-t', 'ledger', '-o', 'beginning', '-e', '-q']);
    expect(read.stdout.trim().split('\n'), read.stderr).toEqual(['a0', 'a1']);
  });
});
