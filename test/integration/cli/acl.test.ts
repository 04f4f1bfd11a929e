// `runnel acl` against a Runnel broker with the StandardAuthorizer on and
// allow.everyone.if.no.acl.found=false: the CLI runs as the super user admin
// (SASL PLAIN); alice's produce is refused until an ALLOW Write ACL exists, a
// PREFIXED DENY overrides it, and deleting ACLs takes each effect back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSaslBroker, type SaslBroker } from '../security/support.js';
import { ok, runnel } from './support.js';

const ADMIN_PW = 'Adm1n-Acl-5521';
const ALICE_PW = 'Al1ce-Acl-9034';
const JAAS = `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="${ADMIN_PW}" user_admin="${ADMIN_PW}" user_alice="${ALICE_PW}";`;

let sasl: SaslBroker;
let admin: string;
let alice: string;

interface Binding { resourceType: string; resourceName: string; patternType: string; principal: string; host: string; operation: string; permission: string }

const acl = async (args: string[]) => ok(await runnel(sasl.broker.bootstrap, ['acl', ...args, '--command-config', admin]));
const produceAsAlice = (value: string) => runnel(sasl.broker.bootstrap, ['produce', 'acl-orders', '--command-config', alice], { input: `${value}\n`, timeoutMs: 30_000 });

beforeAll(async () => {
  sasl = await startSaslBroker([
    `listener.name.sasl_plaintext.plain.sasl.jaas.config=${JAAS}`,
    'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    'super.users=User:admin',
    'allow.everyone.if.no.acl.found=false',
  ]);
  admin = sasl.clientProps('admin', 'PLAIN', 'admin', ADMIN_PW);
  alice = sasl.clientProps('alice', 'PLAIN', 'alice', ALICE_PW);
  ok(await runnel(sasl.broker.bootstrap, ['topic', 'create', 'acl-orders', '--partitions', '1', '--command-config', admin]));
}, 120_000);

afterAll(async () => {
  await sasl?.stop();
});

describe('runnel acl', () => {
  it('creates, lists and deletes ACLs that decide whether alice may produce', async () => {
    const before = await produceAsAlice('v0');
    expect(before.code).toBe(1);
    expect(before.stderr).toContain('TOPIC_AUTHORIZATION_FAILED');

    expect(await acl(['create', '--allow', '--principal', 'User:alice', '--operation', 'Write', '--operation', 'Describe', '--topic', 'acl-orders'])).toBe('Created 2 ACLs.\n');
    const listed = JSON.parse(await acl(['list', '--topic', 'acl-orders', '--json'])) as Binding[];
    expect(listed).toEqual([
      { resourceType: 'TOPIC', resourceName: 'acl-orders', patternType: 'LITERAL', principal: 'User:alice', host: '*', operation: 'DESCRIBE', permission: 'ALLOW' },
      { resourceType: 'TOPIC', resourceName: 'acl-orders', patternType: 'LITERAL', principal: 'User:alice', host: '*', operation: 'WRITE', permission: 'ALLOW' },
    ]);
    ok(await produceAsAlice('v1'));

    await acl(['create', '--deny', '--principal', 'User:alice', '--operation', 'Write', '--topic', 'acl-', '--prefixed']);
    const table = await acl(['list', '--principal', 'User:alice']);
    expect(table.split('\n')[0]).toMatch(/^resource\s+name\s+pattern\s+principal\s+host\s+operation\s+permission$/);
    expect(table).toMatch(/TOPIC\s+acl-\s+PREFIXED\s+User:alice\s+\*\s+WRITE\s+DENY/);
    const denied = await produceAsAlice('v2');
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('TOPIC_AUTHORIZATION_FAILED');

    const gone = JSON.parse(await acl(['delete', '--topic', 'acl-', '--prefixed', '--deny', '--json'])) as Binding[];
    expect(gone.map((b) => [b.resourceName, b.patternType, b.operation, b.permission])).toEqual([['acl-', 'PREFIXED', 'WRITE', 'DENY']]);
    ok(await produceAsAlice('v3'));

    expect(await acl(['delete', '--topic', 'acl-orders', '--operation', 'Write'])).toMatch(/^Deleted 1 ACL\.\n/);
    expect((JSON.parse(await acl(['list', '--json'])) as Binding[]).map((b) => b.operation)).toEqual(['DESCRIBE']);
    const after = await produceAsAlice('v4');
    expect(after.code).toBe(1);
    expect(after.stderr).toContain('TOPIC_AUTHORIZATION_FAILED');

    const got = ok(await runnel(sasl.broker.bootstrap, ['consume', 'acl-orders', '--from-beginning', '--max-messages', '2', '--command-config', admin]));
    expect(got.split('\n').filter(Boolean)).toEqual(['v1', 'v3']);
  });

  it('exits 2 with the usage for a create without --allow or --deny', async () => {
    const r = await runnel(sasl.broker.bootstrap, ['acl', 'create', '--principal', 'User:alice', '--operation', 'Read', '--topic', 'acl-orders', '--command-config', admin]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--allow or --deny');
    expect(r.stderr).toContain('usage: runnel acl list');
  });
});
