// ACL filters (DescribeAcls / DeleteAcls) and the validation of new bindings (security/acl/model.ts).
import { describe, expect, it } from 'vitest';
import {
  AclOperation as Op, AclPermission, CLUSTER_NAME, PatternType, ResourceType, bindingKey, creationProblem, filterMatches, filterProblem, parseBindingKey,
  type AclBinding, type AclFilter,
} from '../../../../broker/src/security/acl/model.js';

const binding = (over: Partial<AclBinding> = {}): AclBinding => ({
  resourceType: ResourceType.TOPIC, resourceName: 'pay-eu', patternType: PatternType.LITERAL, principal: 'User:alice', host: '*', operation: Op.READ, permissionType: AclPermission.ALLOW, ...over,
});
const ANY: AclFilter = { resourceType: ResourceType.ANY, resourceName: null, patternType: PatternType.ANY, principal: null, host: null, operation: Op.ANY, permissionType: AclPermission.ANY };

describe('filterMatches', () => {
  const literal = binding();
  const wildcard = binding({ resourceName: '*' });
  const prefixed = binding({ resourceName: 'pay-', patternType: PatternType.PREFIXED });
  const other = binding({ resourceName: 'orders' });
  const all = [literal, wildcard, prefixed, other];
  const match = (f: Partial<AclFilter>) => all.filter((a) => filterMatches({ ...ANY, ...f }, a));

  it('the ANY filter matches every binding', () => {
    expect(match({})).toEqual(all);
  });

  it('LITERAL and PREFIXED filters match bindings of that pattern type and name exactly', () => {
    expect(match({ patternType: PatternType.LITERAL, resourceName: 'pay-eu' })).toEqual([literal]);
    expect(match({ patternType: PatternType.PREFIXED, resourceName: 'pay-' })).toEqual([prefixed]);
    expect(match({ patternType: PatternType.LITERAL, resourceName: null })).toEqual([literal, wildcard, other]);
  });

  it('ANY with a name matches that exact name in any pattern type', () => {
    expect(match({ resourceName: 'pay-' })).toEqual([prefixed]);
  });

  it('MATCH finds every binding that applies to the named resource', () => {
    expect(match({ patternType: PatternType.MATCH, resourceName: 'pay-eu' })).toEqual([literal, wildcard, prefixed]);
    expect(match({ patternType: PatternType.MATCH, resourceName: 'orders' })).toEqual([wildcard, other]);
  });

  it('principal, host, operation and permission filter exactly', () => {
    const bob = binding({ principal: 'User:bob', host: '10.0.0.1', operation: Op.WRITE, permissionType: AclPermission.DENY });
    expect(filterMatches({ ...ANY, principal: 'User:bob' }, bob)).toBe(true);
    expect(filterMatches({ ...ANY, principal: 'User:alice' }, bob)).toBe(false);
    expect(filterMatches({ ...ANY, host: '10.0.0.2' }, bob)).toBe(false);
    expect(filterMatches({ ...ANY, operation: Op.READ }, bob)).toBe(false);
    expect(filterMatches({ ...ANY, permissionType: AclPermission.ALLOW }, bob)).toBe(false);
    expect(filterMatches({ ...ANY, resourceType: ResourceType.GROUP }, bob)).toBe(false);
  });
});

describe('validation', () => {
  it('refuses filters with UNKNOWN codes', () => {
    expect(filterProblem(ANY)).toBeNull();
    expect(filterProblem({ ...ANY, patternType: PatternType.UNKNOWN })).toMatch(/pattern type/);
    expect(filterProblem({ ...ANY, operation: 99 })).toMatch(/operation/);
  });

  it('refuses bindings Kafka would not store', () => {
    expect(creationProblem(binding())).toBeNull();
    expect(creationProblem(binding({ resourceType: ResourceType.ANY }))).toMatch(/resource type/);
    expect(creationProblem(binding({ patternType: PatternType.MATCH }))).toMatch(/pattern type/);
    expect(creationProblem(binding({ operation: Op.ANY }))).toMatch(/operation/);
    expect(creationProblem(binding({ permissionType: AclPermission.ANY }))).toMatch(/permission/);
    expect(creationProblem(binding({ resourceName: '' }))).toMatch(/empty/);
    expect(creationProblem(binding({ resourceType: ResourceType.CLUSTER, resourceName: 'x' }))).toMatch(CLUSTER_NAME);
    expect(creationProblem(binding({ resourceType: ResourceType.CLUSTER, resourceName: CLUSTER_NAME }))).toBeNull();
    expect(creationProblem(binding({ principal: 'alice' }))).toMatch(/principal/);
  });

  it('a binding survives its storage key; a malformed key is skipped', () => {
    const b = binding({ resourceName: 'we"ird;name', host: '10.0.0.1' });
    expect(parseBindingKey(bindingKey(b))).toEqual(b);
    expect(parseBindingKey('not json')).toBeNull();
    expect(parseBindingKey('[1,2]')).toBeNull();
  });
});
