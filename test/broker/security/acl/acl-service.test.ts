// The ACL service: settings, and following the store's changes made by another broker.
import { describe, expect, it } from 'vitest';
import { AclService, authorizerEnabled, parseSuperUsers } from '../../../../broker/src/security/acl/acl-service.js';
import { AclOperation as Op, AclPermission, PatternType, ResourceType } from '../../../../broker/src/security/acl/model.js';
import { newSession } from '../../../../broker/src/security/session.js';
import { MemoryAclStore } from '../../support/memory-acl-store.js';

const ON = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
const session = newSession(1, '127.0.0.1');
const readT = { resourceType: ResourceType.TOPIC, resourceName: 't', patternType: PatternType.LITERAL, principal: 'User:ANONYMOUS', host: '*', operation: Op.READ, permissionType: AclPermission.ALLOW };
const waitUntil = async (f: () => boolean, ms = 2000) => {
  for (const end = Date.now() + ms; !f() && Date.now() < end;) await new Promise((r) => setTimeout(r, 5));
  return f();
};

describe('AclService', () => {
  it('is on for Kafka\'s two authorizer classes, off when empty, and refuses any other class', () => {
    expect(authorizerEnabled('')).toBe(false);
    expect(authorizerEnabled(ON)).toBe(true);
    expect(authorizerEnabled('kafka.security.authorizer.AclAuthorizer')).toBe(true);
    expect(() => authorizerEnabled('com.example.Custom')).toThrow(/not supported/);
  });

  it('reads super.users separated by semicolons', () => {
    expect([...parseSuperUsers(' User:admin ;User:ops;; ')]).toEqual(['User:admin', 'User:ops']);
  });

  it('off: everything is allowed', async () => {
    const off = new AclService({ authorizerClassName: '', superUsers: '', allowEveryoneIfNoAclFound: false }, new MemoryAclStore());
    await off.start();
    expect(off.allowed(session, Op.WRITE, ResourceType.TOPIC, 't')).toBe(true);
  });

  it('a change made through one service reaches another one on the same store at its next poll', async () => {
    const store = new MemoryAclStore();
    const settings = { authorizerClassName: ON, superUsers: '', allowEveryoneIfNoAclFound: false, reloadIntervalMs: 20 };
    const [a, b] = [new AclService(settings, store), new AclService(settings, store)];
    await Promise.all([a.start(), b.start()]);
    try {
      expect(b.allowed(session, Op.READ, ResourceType.TOPIC, 't')).toBe(false);
      await a.create([readT]);
      expect(a.allowed(session, Op.READ, ResourceType.TOPIC, 't')).toBe(true); // at once where it was made
      expect(await waitUntil(() => b.allowed(session, Op.READ, ResourceType.TOPIC, 't'))).toBe(true);
      await a.delete([{ resourceType: ResourceType.ANY, resourceName: null, patternType: PatternType.ANY, principal: null, host: null, operation: Op.ANY, permissionType: AclPermission.ANY }]);
      expect(await waitUntil(() => !b.allowed(session, Op.READ, ResourceType.TOPIC, 't'))).toBe(true);
    } finally {
      a.stop();
      b.stop();
    }
  });
});
