// AlterUserScramCredentials (key 51), v0.
//   v0: adds, replaces or removes SCRAM credentials (KIP-554); flexible encoding.
// The client sends the salted password; the broker keeps only StoredKey and
// ServerKey (security/sasl/credentials.ts). Kafka's validation and messages
// (AdminManager / ScramControlManager), one result per user: a user with the
// same mechanism named twice (deletions and upsertions together) is
// DUPLICATE_RESOURCE; an empty name UNACCEPTABLE_CREDENTIAL; an unknown
// mechanism UNSUPPORTED_SASL_MECHANISM; iterations outside 4096..16384
// UNACCEPTABLE_CREDENTIAL; deleting a credential that does not exist
// RESOURCE_NOT_FOUND. A user with any failed change gets its first error and
// none of its changes; the others' changes are written together.
// Authorization: ALTER on the cluster (Kafka), else CLUSTER_AUTHORIZATION_FAILED for every user.
import { AlterUserScramCredentials } from '../protocol/messages/alter-user-scram-credentials.js';
import { ErrorCode } from '../../../common/errors.js';
import { credentialFromSaltedPassword, scramMechanismByType, type ScramCredential, type ScramMechanism } from '../security/sasl/credentials.js';
import type { HandlerOf } from './support/types.js';
import type { ResponseOf } from '../protocol/typed.js';
import { Op, authorizeCluster } from './support/authorize.js';

interface Outcome { errorCode: number; errorMessage: string | null }

const OK: Outcome = { errorCode: ErrorCode.NONE, errorMessage: null };
const fail = (errorCode: number, errorMessage: string | null): Outcome => ({ errorCode, errorMessage });

export const alterUserScramCredentialsHandler: HandlerOf<typeof AlterUserScramCredentials> = {
  api: AlterUserScramCredentials,
  minVersion: 0,
  maxVersion: 0,
  async handle(req, ctx, broker) {
    const { deletions, upsertions } = req;
    const users = [...new Set([...deletions, ...upsertions].map((x) => x.name))];
    const outcome = new Map<string, Outcome>();
    if (!authorizeCluster(ctx, broker, Op.ALTER)) {
      for (const user of users) outcome.set(user, fail(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, null));
      return response(users, outcome);
    }
    if (!broker.credentials) {
      for (const user of users) outcome.set(user, fail(ErrorCode.UNSUPPORTED_VERSION, 'SCRAM credentials are not available'));
      return response(users, outcome);
    }
    // A (user, mechanism) pair named twice fails the user (kafka-configs sends one upsertion per mechanism).
    const pairs = new Map<string, number>();
    for (const x of [...deletions, ...upsertions]) pairs.set(`${x.mechanism}:${x.name}`, (pairs.get(`${x.mechanism}:${x.name}`) ?? 0) + 1);
    for (const [pair, n] of pairs) {
      const user = pair.slice(pair.indexOf(':') + 1);
      if (n > 1) outcome.set(user, fail(ErrorCode.DUPLICATE_RESOURCE, 'A user credential cannot be altered twice in the same request'));
    }
    const existing = await broker.credentials.list();
    const del: Array<{ user: string; mechanism: ScramMechanism }> = [];
    const ups: Array<{ user: string; mechanism: ScramMechanism; credential: ScramCredential }> = [];
    const reject = (user: string, o: Outcome | null): boolean => {
      if (o && !outcome.has(user)) outcome.set(user, o);
      return o !== null;
    };
    for (const d of deletions) {
      const mechanism = scramMechanismByType(d.mechanism);
      if (reject(d.name, validName(d.name) ?? (!mechanism ? fail(ErrorCode.UNSUPPORTED_SASL_MECHANISM, 'Unknown SCRAM mechanism') : null))) continue;
      if (reject(d.name, !existing.get(d.name)?.some((i) => i.mechanism === mechanism) ? fail(ErrorCode.RESOURCE_NOT_FOUND, 'Attempt to delete a user credential that does not exist') : null)) continue;
      del.push({ user: d.name, mechanism: mechanism! });
    }
    for (const u of upsertions) {
      const mechanism = scramMechanismByType(u.mechanism);
      if (reject(u.name, validName(u.name) ?? (!mechanism ? fail(ErrorCode.UNSUPPORTED_SASL_MECHANISM, 'Unknown SCRAM mechanism') : null))) continue;
      const m = mechanism!;
      const bad = u.iterations < m.minIterations ? fail(ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too few iterations')
        : u.iterations > m.maxIterations ? fail(ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too many iterations')
          : u.saltedPassword.length !== m.hashBytes || u.salt.length === 0 ? fail(ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Invalid salt or salted password') : null;
      if (reject(u.name, bad)) continue;
      ups.push({ user: u.name, mechanism: m, credential: credentialFromSaltedPassword(m, u.saltedPassword, u.salt, u.iterations) });
    }
    // Only users whose every change is valid are written.
    await broker.credentials.alter(del.filter((d) => !outcome.has(d.user)), ups.filter((u) => !outcome.has(u.user)));
    return response(users, outcome);
  },
};

function validName(name: string): Outcome | null {
  return name === '' ? fail(ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Username must not be empty') : null;
}

function response(users: Iterable<string>, outcome: Map<string, Outcome>): ResponseOf<typeof AlterUserScramCredentials> {
  return { throttleTimeMs: 0, results: [...users].map((user) => ({ user, ...(outcome.get(user) ?? OK) })) };
}
