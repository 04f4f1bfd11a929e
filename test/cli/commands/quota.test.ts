// Arguments and output of `runnel quota`: the entity flags as
// DescribeClientQuotas/AlterClientQuotas entity parts (null: the default
// entity), the --add-config/--delete-config ops, kafka-configs' strict describe
// filter, the usage errors, and the table and sort order of describe.
import { describe, expect, it } from 'vitest';
import { compareEntities, describeFilter, entityOf, entityText, QUOTA_OPTIONS, quotaCommand, quotaOps, quotaTable, type QuotaEntry } from '../../../cli/commands/quota.js';
import { parse } from '../../../cli/commands/common.js';
import { CliUsageError } from '../../../cli/kafka/errors.js';

const values = (args: string[]) => parse(args, QUOTA_OPTIONS).values;

describe('quota arguments', () => {
  it('reads users, client ids and IPs, by name or as the default entity (name null), in Kafka\'s type order', () => {
    expect(entityOf(values(['--client-id', 'app', '--user', 'alice']))).toEqual([
      { entityType: 'user', entityName: 'alice' },
      { entityType: 'client-id', entityName: 'app' },
    ]);
    expect(entityOf(values(['--user-default', '--client-id-default']))).toEqual([
      { entityType: 'user', entityName: null },
      { entityType: 'client-id', entityName: null },
    ]);
    expect(entityOf(values(['--ip', '10.0.0.1']))).toEqual([{ entityType: 'ip', entityName: '10.0.0.1' }]);
    expect(entityOf(values(['--ip-default']))).toEqual([{ entityType: 'ip', entityName: null }]);
    expect(entityOf(values([]))).toEqual([]);
  });

  it('refuses a name with its default, an empty name, and an IP with a user or client id', () => {
    expect(() => entityOf(values(['--user', 'a', '--user-default']))).toThrow(/--user and --user-default together/);
    expect(() => entityOf(values(['--client-id', '']))).toThrow(/empty name/);
    expect(() => entityOf(values(['--ip', '10.0.0.1', '--user', 'a']))).toThrow(/IP entity cannot be combined/);
    expect(() => entityOf(values(['--ip-default', '--client-id-default']))).toThrow(CliUsageError);
  });

  it('reads --add-config and --delete-config as kafka-configs: comma-separated, repeatable, numbers as doubles', () => {
    expect(quotaOps(values(['--add-config', 'producer_byte_rate=1048576, consumer_byte_rate=2e6', '--add-config', 'request_percentage=12.5', '--delete-config', 'controller_mutation_rate']))).toEqual([
      { key: 'producer_byte_rate', value: 1048576, remove: false },
      { key: 'consumer_byte_rate', value: 2000000, remove: false },
      { key: 'request_percentage', value: 12.5, remove: false },
      { key: 'controller_mutation_rate', value: 0, remove: true },
    ]);
    expect(quotaOps(values(['--delete-config', 'producer_byte_rate,consumer_byte_rate']))).toEqual([
      { key: 'producer_byte_rate', value: 0, remove: true },
      { key: 'consumer_byte_rate', value: 0, remove: true },
    ]);
  });

  it('refuses no change, a key without a value, a value that is no number, and a key given twice', () => {
    expect(() => quotaOps(values([]))).toThrow(/--add-config or --delete-config/);
    expect(() => quotaOps(values(['--add-config', 'producer_byte_rate']))).toThrow(/key=value/);
    expect(() => quotaOps(values(['--add-config', '=5']))).toThrow(/key=value/);
    expect(() => quotaOps(values(['--add-config', 'producer_byte_rate=fast']))).toThrow(/expected a number/);
    expect(() => quotaOps(values(['--add-config', 'producer_byte_rate=0x10']))).toThrow(/expected a number/);
    expect(() => quotaOps(values(['--add-config', 'producer_byte_rate=']))).toThrow(/expected a number/);
    expect(() => quotaOps(values(['--delete-config', 'producer_byte_rate=1']))).toThrow(/without a value/);
    expect(() => quotaOps(values(['--add-config', 'producer_byte_rate=1', '--delete-config', 'producer_byte_rate']))).toThrow(/given twice/);
  });

  it('describes every quota without an entity, and exactly the entity given otherwise (strict, match types 0 exact and 1 default)', () => {
    expect(describeFilter([])).toEqual({ components: [], strict: false });
    expect(describeFilter(entityOf(values(['--user', 'alice', '--client-id-default'])))).toEqual({
      components: [{ entityType: 'user', matchType: 0, match: 'alice' }, { entityType: 'client-id', matchType: 1, match: null }],
      strict: true,
    });
  });

  it('usage errors of the command itself: subcommand, positional, flags of the other subcommand', async () => {
    await expect(quotaCommand([])).rejects.toThrow(/which one\? describe \| alter/);
    await expect(quotaCommand(['set'])).rejects.toThrow(/unknown; expected describe \| alter/);
    await expect(quotaCommand(['describe', 'alice'])).rejects.toThrow(/unexpected argument alice/);
    await expect(quotaCommand(['alter', '--add-config', 'producer_byte_rate=1'])).rejects.toThrow(/alter needs an entity/);
    await expect(quotaCommand(['alter', '--user', 'a', '--add-config', 'producer_byte_rate=1', '--json'])).rejects.toThrow(/--json is for describe/);
    await expect(quotaCommand(['describe', '--user', 'a', '--delete-config', 'x'])).rejects.toThrow(/--delete-config is for alter/);
    await expect(quotaCommand(['describe', '--entity-type', 'users'])).rejects.toThrow(CliUsageError);
  });
});

describe('quota output', () => {
  const entries: QuotaEntry[] = [
    { entity: { ip: '10.0.0.1' }, quotas: { connection_creation_rate: 5 } },
    { entity: { 'client-id': 'app' }, quotas: { producer_byte_rate: 2048 } },
    { entity: { user: 'bob' }, quotas: { request_percentage: 12.5 } },
    { entity: { user: 'alice', 'client-id': 'app' }, quotas: { consumer_byte_rate: 4096 } },
    { entity: { user: null }, quotas: { producer_byte_rate: 1024 } },
    { entity: { user: 'alice' }, quotas: { consumer_byte_rate: 1048576, producer_byte_rate: 1024 } },
  ];

  it('sorts users, then client ids, then IPs; the default before names, a user alone before its client ids', () => {
    expect([...entries].sort(compareEntities).map((e) => entityText(Object.entries(e.entity).map(([entityType, entityName]) => ({ entityType, entityName: entityName ?? null }))))).toEqual([
      'user <default>', 'user alice', 'user alice, client-id app', 'user bob', 'client-id app', 'ip 10.0.0.1',
    ]);
  });

  it('prints one row per entity and key, a default as <default>, a type the entity lacks blank, values right-aligned', () => {
    expect(quotaTable([...entries].sort(compareEntities))).toBe([
      'user       client-id  ip        quota                       value',
      '<default>                       producer_byte_rate           1024',
      'alice                           consumer_byte_rate        1048576',
      'alice                           producer_byte_rate           1024',
      'alice      app                  consumer_byte_rate           4096',
      'bob                             request_percentage           12.5',
      '           app                  producer_byte_rate           2048',
      '                      10.0.0.1  connection_creation_rate        5',
      '',
    ].join('\n'));
    expect(quotaTable([])).toBe('user  client-id  ip  quota  value\n');
  });
});
