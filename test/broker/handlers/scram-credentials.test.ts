// AlterUserScramCredentials and DescribeUserScramCredentials: Kafka's
// validation, error codes and messages; only StoredKey/ServerKey are kept.
import { pbkdf2Sync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { alterUserScramCredentialsHandler } from '../../../broker/src/handlers/alter-user-scram-credentials.js';
import { describeUserScramCredentialsHandler } from '../../../broker/src/handlers/describe-user-scram-credentials.js';
import type { BrokerServices, RequestContext } from '../../../broker/src/handlers/support/types.js';
import { newSession } from '../../../broker/src/security/session.js';
import { ErrorCode } from '../../../common/errors.js';
import { passwordMatches, SCRAM_SHA_256, SCRAM_SHA_512 } from '../../../broker/src/security/sasl/credentials.js';
import { MemoryCredentialStore } from '../support/memory-credential-store.js';
import { AlterUserScramCredentials } from '../../../broker/src/protocol/messages/alter-user-scram-credentials.js';
import type { RequestOf } from '../../../broker/src/protocol/typed.js';

const ctx: RequestContext = { apiKey: 51, apiVersion: 0, correlationId: 1, clientId: 't', session: newSession(1, '127.0.0.1') };

type AlterRequest = RequestOf<typeof AlterUserScramCredentials>;

function upsert(name: string, mechanism: number, password: string, iterations = 4096): AlterRequest['upsertions'][number] {
  const salt = Buffer.from(`salt-of-${name}`);
  const hash = mechanism === 2 ? 'sha512' : 'sha256';
  return { name, mechanism, iterations, salt, saltedPassword: pbkdf2Sync(password, salt, iterations, mechanism === 2 ? 64 : 32, hash) };
}

async function setup(): Promise<{ b: BrokerServices; store: MemoryCredentialStore }> {
  const store = new MemoryCredentialStore();
  return { b: { credentials: store } as unknown as BrokerServices, store };
}

const alter = (b: BrokerServices, deletions: AlterRequest['deletions'], upsertions: AlterRequest['upsertions']) => alterUserScramCredentialsHandler.handle({ deletions, upsertions }, ctx, b);
const describeUsers = (b: BrokerServices, users: string[] | null) => describeUserScramCredentialsHandler.handle({ users: users?.map((name) => ({ name })) ?? null }, { ...ctx, apiKey: 50 }, b);

describe('AlterUserScramCredentials', () => {
  it('stores a credential per mechanism that verifies the password, without the salted password', async () => {
    const { b, store } = await setup();
    const up512 = upsert('alice', 2, 'alice-secret');
    const r = await alter(b, [], [up512, upsert('alice', 1, 'alice-secret', 8192)]);
    expect(r!.results).toEqual([{ user: 'alice', errorCode: 0, errorMessage: null }]);
    const c512 = await store.get('alice', SCRAM_SHA_512);
    expect(await passwordMatches(SCRAM_SHA_512, 'alice-secret', c512!)).toBe(true);
    expect(await passwordMatches(SCRAM_SHA_256, 'alice-secret', (await store.get('alice', SCRAM_SHA_256))!)).toBe(true);
    expect(Object.values(c512!).some((v) => Buffer.isBuffer(v) && v.equals(up512.saltedPassword))).toBe(false);
  });

  it("answers Kafka's errors per user and writes only the valid users' changes", async () => {
    const { b, store } = await setup();
    const r = await alter(b, [{ name: 'ghost', mechanism: 1 }, { name: 'x', mechanism: 9 }], [
      upsert('few', 1, 'p', 4095),
      upsert('many', 2, 'p', 16385),
      { ...upsert('odd', 1, 'p'), mechanism: 0 },
      upsert('twice', 1, 'a'), upsert('twice', 1, 'b'),
      upsert('', 1, 'p'),
      upsert('good', 2, 'p'),
    ]);
    const byUser = Object.fromEntries(r!.results.map((x: any) => [x.user, [x.errorCode, x.errorMessage]]));
    expect(byUser).toEqual({
      ghost: [ErrorCode.RESOURCE_NOT_FOUND, 'Attempt to delete a user credential that does not exist'],
      x: [ErrorCode.UNSUPPORTED_SASL_MECHANISM, 'Unknown SCRAM mechanism'],
      few: [ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too few iterations'],
      many: [ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too many iterations'],
      odd: [ErrorCode.UNSUPPORTED_SASL_MECHANISM, 'Unknown SCRAM mechanism'],
      twice: [ErrorCode.DUPLICATE_RESOURCE, 'A user credential cannot be altered twice in the same request'],
      '': [ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Username must not be empty'],
      good: [0, null],
    });
    expect([...(await store.list()).keys()]).toEqual(['good']);
  });

  it('deletes one mechanism of a user, then the user is gone once none is left', async () => {
    const { b } = await setup();
    await alter(b, [], [upsert('bob', 1, 'p'), upsert('bob', 2, 'p')]);
    expect((await alter(b, [{ name: 'bob', mechanism: 1 }], []))!.results[0].errorCode).toBe(0);
    expect((await describeUsers(b, ['bob']))!.results[0].credentialInfos).toEqual([{ mechanism: 2, iterations: 4096 }]);
    await alter(b, [{ name: 'bob', mechanism: 2 }], []);
    expect((await describeUsers(b, ['bob']))!.results[0].errorCode).toBe(ErrorCode.RESOURCE_NOT_FOUND);
  });
});

describe('DescribeUserScramCredentials', () => {
  it('lists every user (null or empty users), mechanisms and iterations only', async () => {
    const { b } = await setup();
    await alter(b, [], [upsert('alice', 2, 'p'), upsert('alice', 1, 'p', 8192), upsert('bob', 1, 'p')]);
    for (const users of [null, []]) {
      const r = await describeUsers(b, users);
      expect(r!.errorCode).toBe(0);
      expect(r!.results).toEqual([
        { user: 'alice', errorCode: 0, errorMessage: null, credentialInfos: [{ mechanism: 1, iterations: 8192 }, { mechanism: 2, iterations: 4096 }] },
        { user: 'bob', errorCode: 0, errorMessage: null, credentialInfos: [{ mechanism: 1, iterations: 4096 }] },
      ]);
    }
  });

  it('RESOURCE_NOT_FOUND for an unknown user, DUPLICATE_RESOURCE for one named twice', async () => {
    const { b } = await setup();
    await alter(b, [], [upsert('alice', 2, 'p')]);
    const r = await describeUsers(b, ['nobody', 'alice', 'alice']);
    expect(r!.results.map((x: any) => [x.user, x.errorCode, x.errorMessage])).toEqual([
      ['nobody', ErrorCode.RESOURCE_NOT_FOUND, 'Attempt to describe a user credential that does not exist: nobody'],
      ['alice', ErrorCode.DUPLICATE_RESOURCE, 'Cannot describe SCRAM credentials for the same user twice in a single request: alice'],
    ]);
  });
});
