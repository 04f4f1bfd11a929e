// `runnel user create|delete|list`: SCRAM credentials over
// AlterUserScramCredentials and DescribeUserScramCredentials (KIP-554), as
// kafka-configs --entity-type users does: the client draws the salt and sends
// the salted password (PBKDF2-HMAC, RFC 5802 Hi()), never the password.
import crypto from 'node:crypto';
import { AlterUserScramCredentials } from '../../broker/src/protocol/messages/alter-user-scram-credentials.js';
import { DescribeUserScramCredentials } from '../../broker/src/protocol/messages/describe-user-scram-credentials.js';
import { check, CliUsageError } from '../kafka/errors.js';
import type { KafkaClient } from '../kafka/client.js';
import { CONNECTION_USAGE, int, json, nameArg, out, parse, str, subcommand, table, withClient, type Values } from './common.js';

export const USER_USAGE = `usage: runnel user create NAME --mechanism SCRAM-SHA-256|SCRAM-SHA-512 [--iterations N] [--password PW]
       runnel user delete NAME --mechanism SCRAM-SHA-256|SCRAM-SHA-512
       runnel user list [NAME] [--json]

SCRAM credentials of users, as kafka-configs --entity-type users does. create adds or replaces
the user's credential for one mechanism; without --password the password is read from stdin
(up to the first line break). The salt and salted password are computed here; the broker never
sees the password. list shows each user's mechanisms and iterations.

options:
  --mechanism M             SCRAM-SHA-256 or SCRAM-SHA-512
  --iterations N            create: PBKDF2 iterations (default 4096, Kafka's minimum)
  --password PW             create: the password (default: read from stdin)
  --json                    JSON instead of a table
${CONNECTION_USAGE}`;

export const USER_OPTIONS = {
  mechanism: { type: 'string' },
  iterations: { type: 'string' },
  password: { type: 'string' },
  json: { type: 'boolean' },
} as const;

const SUBCOMMANDS = ['create', 'delete', 'list'] as const;

/** ScramMechanism by number (AlterUserScramCredentialsRequest). */
export const MECHANISMS = ['UNKNOWN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'];
export const DEFAULT_ITERATIONS = 4096;

export function mechanismOf(v: Values): number {
  const m = str(v, 'mechanism');
  if (m === undefined) throw new CliUsageError('--mechanism SCRAM-SHA-256|SCRAM-SHA-512 is required');
  const i = MECHANISMS.indexOf(m.toUpperCase().replace(/_/g, '-'));
  if (i < 1) throw new CliUsageError(`--mechanism ${m}: expected SCRAM-SHA-256 or SCRAM-SHA-512`);
  return i;
}

/** A salt as Kafka's ScramFormatter draws one: a random 130-bit number in base 36, as bytes. */
export function scramSalt(): Buffer {
  const n = BigInt(`0x${crypto.randomBytes(17).toString('hex')}`) & ((1n << 130n) - 1n);
  return Buffer.from(n.toString(36), 'utf8');
}

/** RFC 5802 SaltedPassword = Hi(password, salt, i): PBKDF2 with HMAC-SHA-256 or -512. */
export function saltedPassword(mechanism: number, password: string, salt: Buffer, iterations: number): Buffer {
  const hash = mechanism === 1 ? 'sha256' : 'sha512';
  return crypto.pbkdf2Sync(password.normalize('NFKC'), salt, iterations, mechanism === 1 ? 32 : 64, hash);
}

async function readPassword(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

export async function userCommand(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, USER_OPTIONS);
  const sub = subcommand(positionals, SUBCOMMANDS, 'user');
  if (sub === 'list') {
    if (positionals.length > 2) throw new CliUsageError(`unexpected argument ${positionals[2]}`);
    return withClient(values, (c) => listUsers(c, positionals[1] ?? null, values));
  }
  const user = nameArg(positionals, 'user name');
  const mechanism = mechanismOf(values);
  if (sub === 'delete') return withClient(values, (c) => alter(c, user, { deletions: [{ name: user, mechanism }], upsertions: [] }, `Deleted ${MECHANISMS[mechanism]} credential of user ${user}.`));
  const iterations = int(values, 'iterations', 1, 2 ** 31 - 1) ?? DEFAULT_ITERATIONS;
  const password = str(values, 'password') ?? await readPassword();
  if (password === '') throw new CliUsageError('empty password (give --password or a line on stdin)');
  const salt = scramSalt();
  const upsertion = { name: user, mechanism, iterations, salt, saltedPassword: saltedPassword(mechanism, password, salt, iterations) };
  return withClient(values, (c) => alter(c, user, { deletions: [], upsertions: [upsertion] }, `Created ${MECHANISMS[mechanism]} credential of user ${user}.`));
}

async function alter(c: KafkaClient, user: string, body: { deletions: Array<{ name: string; mechanism: number }>; upsertions: Array<{ name: string; mechanism: number; iterations: number; salt: Buffer; saltedPassword: Buffer }> }, done: string): Promise<void> {
  const conn = await c.any();
  const r = await conn.request(AlterUserScramCredentials, body);
  const res = r.results.find((x) => x.user === user);
  if (!res) throw new Error('AlterUserScramCredentials: no result for the user');
  check(res.errorCode, `user ${user}`, res.errorMessage);
  await out(`${done}\n`);
}

async function listUsers(c: KafkaClient, user: string | null, v: Values): Promise<void> {
  const conn = await c.any();
  const r = await conn.request(DescribeUserScramCredentials, { users: user === null ? null : [{ name: user }] });
  check(r.errorCode, 'describe SCRAM credentials', r.errorMessage);
  const rows: Array<{ user: string; mechanism: string; iterations: number }> = [];
  for (const res of r.results) {
    check(res.errorCode, `user ${res.user}`, res.errorMessage);
    for (const ci of res.credentialInfos) rows.push({ user: res.user, mechanism: MECHANISMS[ci.mechanism] ?? String(ci.mechanism), iterations: ci.iterations });
  }
  rows.sort((a, b) => a.user.localeCompare(b.user) || a.mechanism.localeCompare(b.mechanism));
  if (v.json) return out(json(rows));
  await out(table(['user', 'mechanism', 'iterations'], rows.map((x) => [x.user, x.mechanism, String(x.iterations)]), new Set([2])));
}

