// The AclStore (security/acl/acl-store.ts) and CredentialStore
// (security/sasl/credentials.ts) contracts: ACL bindings with a change counter
// that brokers poll, and SCRAM credentials per user and mechanism.
import { describe, expect, it } from 'vitest';
import type { AclStore } from '../../../../broker/src/security/acl/acl-store.js';
import type { AclBinding } from '../../../../broker/src/security/acl/model.js';
import { SCRAM_SHA_256, SCRAM_SHA_512, type CredentialStore, type ScramCredential } from '../../../../broker/src/security/sasl/credentials.js';
import { perTest, type Factory } from './harness.js';

/** Kafka's codes: resource TOPIC 2 / GROUP 3, pattern LITERAL 3 / PREFIXED 4, operation READ 3 / WRITE 4, permission ALLOW 3 / DENY 2. */
const acl = (principal: string, resourceType: number, resourceName: string, operation: number, o: Partial<AclBinding> = {}): AclBinding =>
  ({ resourceType, resourceName, patternType: 3, principal, host: '*', operation, permissionType: 3, ...o });

const sortAcls = (bs: AclBinding[]): AclBinding[] => [...bs].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

export function aclStoreContract(open: Factory<AclStore>): void {
  const store = perTest(open);

  describe('ACL store', () => {
    it('starts empty at version 0; every add or remove that names bindings bumps the version', async () => {
      const s = store();
      expect(await s.load()).toEqual({ version: 0, bindings: [] });
      const read = acl('User:alice', 2, 'orders', 3);
      const write = acl('User:bob', 2, 'orders-', 4, { patternType: 4, host: '10.0.0.1', permissionType: 2 });
      const group = acl('User:alice', 3, 'g {1}', 3);
      await s.add([read, write]);
      await s.add([group, read]); // present ones stay, once
      expect(await s.version()).toBe(2);
      const loaded = await s.load();
      expect(loaded.version).toBe(2);
      expect(sortAcls(loaded.bindings)).toEqual(sortAcls([read, write, group]));

      // remove answers the bindings that were present
      expect(await s.remove([write, acl('User:nobody', 2, 'orders', 3)])).toEqual([write]);
      expect(await s.version()).toBe(3);
      expect(sortAcls((await s.load()).bindings)).toEqual(sortAcls([read, group]));
    });

    it('an add or remove of no bindings changes nothing, not even the version', async () => {
      const s = store();
      await s.add([]);
      expect(await s.remove([])).toEqual([]);
      expect(await s.load()).toEqual({ version: 0, bindings: [] });
    });
  });
}

const cred = (seed: number, iterations: number): ScramCredential => ({
  salt: Buffer.alloc(16, seed), iterations, storedKey: Buffer.alloc(32, seed + 1), serverKey: Buffer.alloc(32, seed + 2),
});

export function credentialStoreContract(open: Factory<CredentialStore>): void {
  const store = perTest(open);

  describe('SCRAM credential store', () => {
    it('stores credentials per user and mechanism; alter deletes and upserts; list names mechanisms and iterations', async () => {
      const s = store();
      expect(await s.get('alice', SCRAM_SHA_256)).toBeNull();
      expect(await s.list()).toEqual(new Map());
      await s.alter([], [
        { user: 'alice', mechanism: SCRAM_SHA_256, credential: cred(1, 4096) },
        { user: 'alice', mechanism: SCRAM_SHA_512, credential: cred(2, 8192) },
        { user: 'bob:colon', mechanism: SCRAM_SHA_256, credential: cred(3, 4096) },
      ]);
      expect(await s.get('alice', SCRAM_SHA_256)).toEqual(cred(1, 4096));
      expect(await s.get('alice', SCRAM_SHA_512)).toEqual(cred(2, 8192));
      expect(await s.get('bob:colon', SCRAM_SHA_512)).toBeNull();
      const listed = await s.list();
      expect([...listed.keys()].sort()).toEqual(['alice', 'bob:colon']);
      expect(listed.get('alice')!.map((i) => [i.mechanism.name, i.iterations]).sort()).toEqual([['SCRAM-SHA-256', 4096], ['SCRAM-SHA-512', 8192]]);

      await s.alter([{ user: 'alice', mechanism: SCRAM_SHA_512 }], [{ user: 'alice', mechanism: SCRAM_SHA_256, credential: cred(4, 16384) }]);
      expect(await s.get('alice', SCRAM_SHA_512)).toBeNull();
      expect(await s.get('alice', SCRAM_SHA_256)).toEqual(cred(4, 16384));
      expect((await s.list()).get('alice')!.map((i) => [i.mechanism.name, i.iterations])).toEqual([['SCRAM-SHA-256', 16384]]);
    });
  });
}
