// `runnel user` against a Runnel broker with the StandardAuthorizer on: the
// super user admin (SASL PLAIN) creates SCRAM credentials for carol (password
// from stdin and from --password), carol then authenticates with each
// mechanism; a deleted credential no longer authenticates, and a user who is
// no super user may not manage credentials.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSaslBroker, type SaslBroker } from '../security/support.js';
import { ok, runnel } from './support.js';

const ADMIN_PW = 'Adm1n-User-4417';
const CAROL_PW = 'C4rol-Scram-2290';
const JAAS = `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="${ADMIN_PW}" user_admin="${ADMIN_PW}";`;

let sasl: SaslBroker;
let admin: string;

interface Credential { user: string; mechanism: string; iterations: number }

const asAdmin = async (args: string[], input?: string) => ok(await runnel(sasl.broker.bootstrap, [...args, '--command-config', admin], { input }));

function scramProps(name: string, mechanism: string, user: string, password: string): string {
  const file = path.join(sasl.dir, `${name}.properties`);
  fs.writeFileSync(file, ['security.protocol=SASL_PLAINTEXT', `sasl.mechanism=${mechanism}`,
    `sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="${user}" password="${password}";`, ''].join('\n'));
  return file;
}

beforeAll(async () => {
  sasl = await startSaslBroker([
    `listener.name.sasl_plaintext.plain.sasl.jaas.config=${JAAS}`,
    'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    'super.users=User:admin;User:carol',
    'allow.everyone.if.no.acl.found=false',
  ]);
  admin = sasl.clientProps('admin', 'PLAIN', 'admin', ADMIN_PW);
}, 120_000);

afterAll(async () => {
  await sasl?.stop();
});

describe('runnel user', () => {
  it('creates SCRAM credentials that authenticate, lists them and deletes one', async () => {
    expect(await asAdmin(['user', 'create', 'carol', '--mechanism', 'SCRAM-SHA-256', '--iterations', '8192'], `${CAROL_PW}\n`)).toBe('Created SCRAM-SHA-256 credential of user carol.\n');
    await asAdmin(['user', 'create', 'carol', '--mechanism', 'SCRAM-SHA-512', '--password', CAROL_PW]);
    expect(JSON.parse(await asAdmin(['user', 'list', '--json'])) as Credential[]).toEqual([
      { user: 'carol', mechanism: 'SCRAM-SHA-256', iterations: 8192 },
      { user: 'carol', mechanism: 'SCRAM-SHA-512', iterations: 4096 },
    ]);
    expect(await asAdmin(['user', 'list', 'carol'])).toMatch(/^user\s+mechanism\s+iterations\ncarol\s+SCRAM-SHA-256\s+8192\ncarol\s+SCRAM-SHA-512\s+4096\n$/);

    const c256 = scramProps('carol-256', 'SCRAM-SHA-256', 'carol', CAROL_PW);
    const c512 = scramProps('carol-512', 'SCRAM-SHA-512', 'carol', CAROL_PW);
    ok(await runnel(sasl.broker.bootstrap, ['topic', 'create', 'user-t', '--partitions', '1', '--command-config', c256]));
    ok(await runnel(sasl.broker.bootstrap, ['produce', 'user-t', '--command-config', c256], { input: 'a\n' }));
    ok(await runnel(sasl.broker.bootstrap, ['produce', 'user-t', '--command-config', c512], { input: 'b\n' }));
    const got = ok(await runnel(sasl.broker.bootstrap, ['consume', 'user-t', '--from-beginning', '--max-messages', '2', '--command-config', c512]));
    expect(got.split('\n').filter(Boolean)).toEqual(['a', 'b']);

    const wrong = await runnel(sasl.broker.bootstrap, ['topic', 'list', '--command-config', scramProps('carol-wrong', 'SCRAM-SHA-512', 'carol', 'not-it')]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('SASL_AUTHENTICATION_FAILED');

    expect(await asAdmin(['user', 'delete', 'carol', '--mechanism', 'SCRAM-SHA-256'])).toBe('Deleted SCRAM-SHA-256 credential of user carol.\n');
    expect(JSON.parse(await asAdmin(['user', 'list', '--json'])) as Credential[]).toEqual([{ user: 'carol', mechanism: 'SCRAM-SHA-512', iterations: 4096 }]);
    const deleted = await runnel(sasl.broker.bootstrap, ['topic', 'list', '--command-config', c256]);
    expect(deleted.code).toBe(1);
    expect(deleted.stderr).toContain('SASL_AUTHENTICATION_FAILED');
    ok(await runnel(sasl.broker.bootstrap, ['topic', 'list', '--command-config', c512]));
  });

  it('refuses to manage credentials for a user who is no super user, and a second delete', async () => {
    await asAdmin(['user', 'create', 'dave', '--mechanism', 'SCRAM-SHA-512', '--password', 'D4ve-Scram-7781']);
    const dave = scramProps('dave', 'SCRAM-SHA-512', 'dave', 'D4ve-Scram-7781');
    const r = await runnel(sasl.broker.bootstrap, ['user', 'create', 'eve', '--mechanism', 'SCRAM-SHA-512', '--password', 'x-x-x-x-x', '--command-config', dave]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('CLUSTER_AUTHORIZATION_FAILED');
    await asAdmin(['user', 'delete', 'dave', '--mechanism', 'SCRAM-SHA-512']);
    const again = await runnel(sasl.broker.bootstrap, ['user', 'delete', 'dave', '--mechanism', 'SCRAM-SHA-512', '--command-config', admin]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('RESOURCE_NOT_FOUND');
  });
});
