// Kafka's authorization rules over a set of bindings (security/acl/authorizer.ts).
import { describe, expect, it } from 'vitest';
import { authorize, authorizeAnyOfType, normalizeHost, type AuthorizerSettings } from '../../../../broker/src/security/acl/authorizer.js';
import { AclOperation as Op, AclPermission, CLUSTER_NAME, PatternType, ResourceType, type AclBinding } from '../../../../broker/src/security/acl/model.js';

const settings = (over: Partial<AuthorizerSettings> = {}): AuthorizerSettings => ({ superUsers: new Set(), allowEveryoneIfNoAclFound: false, ...over });
const alice = { principal: 'User:alice', host: '10.0.0.1' };
const bob = { principal: 'User:bob', host: '10.0.0.2' };

function acl(over: Partial<AclBinding>): AclBinding {
  return { resourceType: ResourceType.TOPIC, resourceName: 't', patternType: PatternType.LITERAL, principal: 'User:alice', host: '*', operation: Op.READ, permissionType: AclPermission.ALLOW, ...over };
}

describe('authorize', () => {
  it('allows only what a matching ALLOW names', () => {
    const acls = [acl({})];
    expect(authorize(acls, settings(), alice, Op.READ, ResourceType.TOPIC, 't')).toBe(true);
    expect(authorize(acls, settings(), alice, Op.WRITE, ResourceType.TOPIC, 't')).toBe(false);
    expect(authorize(acls, settings(), bob, Op.READ, ResourceType.TOPIC, 't')).toBe(false);
    expect(authorize(acls, settings(), alice, Op.READ, ResourceType.TOPIC, 'other')).toBe(false);
    expect(authorize(acls, settings(), alice, Op.READ, ResourceType.GROUP, 't')).toBe(false);
  });

  it('DENY wins over ALLOW, also over ALLOW ALL and a wildcard principal', () => {
    const acls = [acl({ operation: Op.ALL, principal: 'User:*' }), acl({ permissionType: AclPermission.DENY })];
    expect(authorize(acls, settings(), alice, Op.READ, ResourceType.TOPIC, 't')).toBe(false);
    expect(authorize(acls, settings(), alice, Op.WRITE, ResourceType.TOPIC, 't')).toBe(true);
    expect(authorize(acls, settings(), bob, Op.READ, ResourceType.TOPIC, 't')).toBe(true);
  });

  it('a DENY of ALL denies every operation', () => {
    const acls = [acl({ operation: Op.WRITE }), acl({ operation: Op.ALL, permissionType: AclPermission.DENY, resourceName: '*' })];
    expect(authorize(acls, settings(), alice, Op.WRITE, ResourceType.TOPIC, 't')).toBe(false);
  });

  it('PREFIXED bindings apply to every name that starts with the prefix', () => {
    const acls = [acl({ patternType: PatternType.PREFIXED, resourceName: 'pay-', operation: Op.WRITE })];
    expect(authorize(acls, settings(), alice, Op.WRITE, ResourceType.TOPIC, 'pay-eu')).toBe(true);
    expect(authorize(acls, settings(), alice, Op.WRITE, ResourceType.TOPIC, 'pay-')).toBe(true);
    expect(authorize(acls, settings(), alice, Op.WRITE, ResourceType.TOPIC, 'pa')).toBe(false);
    expect(authorize(acls, settings(), alice, Op.WRITE, ResourceType.TOPIC, 'xpay-eu')).toBe(false);
  });

  it('a PREFIXED DENY beats a LITERAL ALLOW', () => {
    const acls = [acl({}), acl({ patternType: PatternType.PREFIXED, resourceName: 't', permissionType: AclPermission.DENY })];
    expect(authorize(acls, settings(), alice, Op.READ, ResourceType.TOPIC, 't')).toBe(false);
  });

  it('a LITERAL "*" resource name matches every resource of its type; a PREFIXED "*" does not', () => {
    expect(authorize([acl({ resourceName: '*' })], settings(), alice, Op.READ, ResourceType.TOPIC, 'anything')).toBe(true);
    expect(authorize([acl({ resourceName: '*', patternType: PatternType.PREFIXED })], settings(), alice, Op.READ, ResourceType.TOPIC, 'anything')).toBe(false);
  });

  it('the host must match, or be "*"; IPv4-mapped IPv6 addresses compare as IPv4', () => {
    const acls = [acl({ host: '10.0.0.1' })];
    expect(authorize(acls, settings(), alice, Op.READ, ResourceType.TOPIC, 't')).toBe(true);
    expect(authorize(acls, settings(), { ...alice, host: '::ffff:10.0.0.1' }, Op.READ, ResourceType.TOPIC, 't')).toBe(true);
    expect(authorize(acls, settings(), { ...alice, host: '10.0.0.9' }, Op.READ, ResourceType.TOPIC, 't')).toBe(false);
    expect(normalizeHost('::1')).toBe('::1');
  });

  it('READ, WRITE, DELETE and ALTER imply DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS; nothing else is implied', () => {
    for (const op of [Op.READ, Op.WRITE, Op.DELETE, Op.ALTER]) {
      expect(authorize([acl({ operation: op })], settings(), alice, Op.DESCRIBE, ResourceType.TOPIC, 't')).toBe(true);
    }
    expect(authorize([acl({ operation: Op.CREATE })], settings(), alice, Op.DESCRIBE, ResourceType.TOPIC, 't')).toBe(false);
    expect(authorize([acl({ operation: Op.ALTER_CONFIGS })], settings(), alice, Op.DESCRIBE_CONFIGS, ResourceType.TOPIC, 't')).toBe(true);
    expect(authorize([acl({ operation: Op.DESCRIBE_CONFIGS })], settings(), alice, Op.ALTER_CONFIGS, ResourceType.TOPIC, 't')).toBe(false);
    expect(authorize([acl({ operation: Op.DESCRIBE })], settings(), alice, Op.READ, ResourceType.TOPIC, 't')).toBe(false);
    // A DENY of READ does not deny DESCRIBE (Kafka denies only the named operation or ALL).
    const acls = [acl({ operation: Op.WRITE }), acl({ operation: Op.READ, permissionType: AclPermission.DENY })];
    expect(authorize(acls, settings(), alice, Op.DESCRIBE, ResourceType.TOPIC, 't')).toBe(true);
  });

  it('super users are allowed everything, whatever denies them', () => {
    const acls = [acl({ principal: 'User:admin', operation: Op.ALL, permissionType: AclPermission.DENY })];
    const s = settings({ superUsers: new Set(['User:admin']) });
    expect(authorize(acls, s, { principal: 'User:admin', host: '1.2.3.4' }, Op.READ, ResourceType.TOPIC, 't')).toBe(true);
    expect(authorize([], s, { principal: 'User:admin', host: '1.2.3.4' }, Op.CLUSTER_ACTION, ResourceType.CLUSTER, CLUSTER_NAME)).toBe(true);
  });

  it('allow.everyone.if.no.acl.found applies only to resources no binding names, for anybody', () => {
    const s = settings({ allowEveryoneIfNoAclFound: true });
    expect(authorize([], s, alice, Op.WRITE, ResourceType.TOPIC, 't')).toBe(true);
    expect(authorize([], settings(), alice, Op.WRITE, ResourceType.TOPIC, 't')).toBe(false);
    // Bob's binding on t makes t closed to alice.
    expect(authorize([acl({ principal: 'User:bob' })], s, alice, Op.READ, ResourceType.TOPIC, 't')).toBe(false);
    // A binding on another resource (or type) leaves t open.
    expect(authorize([acl({ resourceName: 'u' }), acl({ resourceType: ResourceType.GROUP })], s, alice, Op.READ, ResourceType.TOPIC, 't')).toBe(true);
  });
});

describe('authorizeAnyOfType (InitProducerId: WRITE on some topic)', () => {
  it('is allowed by an ALLOW on any topic, literal or prefixed', () => {
    expect(authorizeAnyOfType([acl({ operation: Op.WRITE, resourceName: 'x' })], settings(), alice, Op.WRITE, ResourceType.TOPIC)).toBe(true);
    expect(authorizeAnyOfType([acl({ operation: Op.WRITE, patternType: PatternType.PREFIXED, resourceName: 'pay-' })], settings(), alice, Op.WRITE, ResourceType.TOPIC)).toBe(true);
    expect(authorizeAnyOfType([acl({ operation: Op.READ })], settings(), alice, Op.WRITE, ResourceType.TOPIC)).toBe(false);
    expect(authorizeAnyOfType([], settings(), alice, Op.WRITE, ResourceType.TOPIC)).toBe(false);
  });

  it('is refused when a DENY covers every ALLOW', () => {
    const allow = acl({ operation: Op.WRITE, resourceName: 'pay-1' });
    expect(authorizeAnyOfType([allow, acl({ operation: Op.WRITE, resourceName: 'pay-1', permissionType: AclPermission.DENY })], settings(), alice, Op.WRITE, ResourceType.TOPIC)).toBe(false);
    expect(authorizeAnyOfType([allow, acl({ operation: Op.WRITE, patternType: PatternType.PREFIXED, resourceName: 'pay', permissionType: AclPermission.DENY })], settings(), alice, Op.WRITE, ResourceType.TOPIC)).toBe(false);
    expect(authorizeAnyOfType([allow, acl({ operation: Op.ALL, resourceName: '*', permissionType: AclPermission.DENY })], settings(), alice, Op.WRITE, ResourceType.TOPIC)).toBe(false);
    expect(authorizeAnyOfType([allow, acl({ operation: Op.WRITE, resourceName: 'other', permissionType: AclPermission.DENY })], settings(), alice, Op.WRITE, ResourceType.TOPIC)).toBe(true);
  });
});
