// Arguments of `runnel acl`: Kafka's numbers for resources, patterns,
// operations and permissions, and the combinations that are usage errors.
import { describe, expect, it } from 'vitest';
import { ACL_OPTIONS, aclCreations, aclFilters, operationCode } from '../../../cli/commands/acl.js';
import { parse } from '../../../cli/commands/common.js';

const values = (args: string[]) => parse(args, ACL_OPTIONS).values;

describe('acl arguments', () => {
  it('reads operations as kafka-acls and as Kafka print them', () => {
    expect(operationCode('Read')).toBe(3);
    expect(operationCode('IdempotentWrite')).toBe(12);
    expect(operationCode('DESCRIBE_CONFIGS')).toBe(10);
    expect(operationCode('all')).toBe(2);
    expect(() => operationCode('Any')).toThrow(/unknown/);
    expect(() => operationCode('Fly')).toThrow(/unknown/);
  });

  it('create: one LITERAL ALLOW creation per operation, host * by default; --prefixed and --deny', () => {
    expect(aclCreations(values(['--allow', '--principal', 'User:alice', '--operation', 'Read', '--operation', 'Describe', '--topic', 'orders']))).toEqual([
      { resourceType: 2, resourceName: 'orders', resourcePatternType: 3, principal: 'User:alice', host: '*', operation: 3, permissionType: 3 },
      { resourceType: 2, resourceName: 'orders', resourcePatternType: 3, principal: 'User:alice', host: '*', operation: 8, permissionType: 3 },
    ]);
    const [d] = aclCreations(values(['--deny', '--principal', 'User:bob', '--operation', 'Write', '--topic', 'pay-', '--prefixed', '--host', '10.0.0.1']));
    expect(d).toMatchObject({ resourcePatternType: 4, permissionType: 2, host: '10.0.0.1', operation: 4 });
    const [c] = aclCreations(values(['--allow', '--principal', 'User:ops', '--operation', 'Alter', '--cluster']));
    expect(c).toMatchObject({ resourceType: 4, resourceName: 'kafka-cluster' });
    const [t] = aclCreations(values(['--allow', '--principal', 'User:ops', '--operation', 'Write', '--transactional-id', 'tx-1']));
    expect(t).toMatchObject({ resourceType: 5, resourceName: 'tx-1' });
  });

  it('create refuses a missing permission, principal, operation or resource, and two resources', () => {
    expect(() => aclCreations(values(['--principal', 'User:a', '--operation', 'Read', '--topic', 't']))).toThrow(/--allow or --deny/);
    expect(() => aclCreations(values(['--allow', '--deny', '--principal', 'User:a', '--operation', 'Read', '--topic', 't']))).toThrow(/together/);
    expect(() => aclCreations(values(['--allow', '--operation', 'Read', '--topic', 't']))).toThrow(/--principal/);
    expect(() => aclCreations(values(['--allow', '--principal', 'alice', '--operation', 'Read', '--topic', 't']))).toThrow(/TYPE:NAME/);
    expect(() => aclCreations(values(['--allow', '--principal', 'User:a', '--topic', 't']))).toThrow(/--operation/);
    expect(() => aclCreations(values(['--allow', '--principal', 'User:a', '--operation', 'Read']))).toThrow(/resource/);
    expect(() => aclCreations(values(['--allow', '--principal', 'User:a', '--operation', 'Read', '--topic', 't', '--group', 'g']))).toThrow(/one resource/);
  });

  it('list matches any pattern, operation and permission unless given; delete needs a resource and matches LITERAL', () => {
    expect(aclFilters(values([]), 'list')).toEqual([{ resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 }]);
    expect(aclFilters(values(['--group', 'g1', '--principal', 'User:a']), 'list')).toEqual([{ resourceTypeFilter: 3, resourceNameFilter: 'g1', patternTypeFilter: 1, principalFilter: 'User:a', hostFilter: null, operation: 1, permissionType: 1 }]);
    const del = aclFilters(values(['--topic', 'orders', '--deny', '--operation', 'Read', '--operation', 'Write']), 'delete');
    expect(del.map((x) => [x.patternTypeFilter, x.operation, x.permissionType])).toEqual([[3, 3, 2], [3, 4, 2]]);
    expect(aclFilters(values(['--topic', 'pay-', '--prefixed']), 'delete')[0]!.patternTypeFilter).toBe(4);
    expect(() => aclFilters(values(['--principal', 'User:a']), 'delete')).toThrow(/needs a resource/);
    expect(() => aclFilters(values(['--prefixed']), 'list')).toThrow(/--prefixed needs/);
  });
});
