// Arguments of produce, consume and group reset-offsets: defaults, implied
// flags and the combinations that are usage errors (exit 2).
import { describe, expect, it } from 'vitest';
import { produceSettings } from '../../../cli/commands/produce.js';
import { consumeSettings } from '../../../cli/commands/consume.js';
import { GROUP_OPTIONS, resetPlan } from '../../../cli/commands/group.js';
import { parse } from '../../../cli/commands/common.js';
import { CliUsageError } from '../../../cli/kafka/errors.js';
import { EARLIEST, LATEST } from '../../../cli/kafka/fetcher.js';

describe('produce arguments', () => {
  it('has Kafka console producer defaults: no key, tab separators, no compression', () => {
    const { settings } = produceSettings(['orders']);
    expect(settings.topic).toBe('orders');
    expect(settings.format).toEqual({ keySeparator: null, headers: null });
    expect(settings.codec).toBe(0);
    expect(settings.partition).toBeUndefined();
  });

  it('--key-separator implies --parse-key; headers and compression are read', () => {
    const { settings } = produceSettings(['t', '--key-separator', '::', '--parse-headers', '--header', 'a=b=c', '--compression', 'zstd', '--partition', '3']);
    expect(settings.format.keySeparator).toEqual(Buffer.from('::'));
    expect(settings.format.headers).toEqual({ delimiter: Buffer.from('\t'), separator: Buffer.from(','), keySeparator: Buffer.from(':') });
    expect(settings.extraHeaders).toEqual([[Buffer.from('a'), Buffer.from('b=c')]]);
    expect(settings.codec).toBe(4);
    expect(settings.partition).toBe(3);
  });

  it('refuses a missing topic, an unknown codec, a bad header and unknown flags', () => {
    expect(() => produceSettings([])).toThrow(/missing topic name/);
    expect(() => produceSettings(['t', '--compression', 'brotli'])).toThrow(/--compression brotli/);
    expect(() => produceSettings(['t', '--header', 'nokey'])).toThrow(/expected key=value/);
    expect(() => produceSettings(['t', '--partition', '-1'])).toThrow(CliUsageError);
    expect(() => produceSettings(['t', '--bogus'])).toThrow(CliUsageError);
  });
});

describe('consume arguments', () => {
  it('starts at the end, or the beginning, or an offset', () => {
    expect(consumeSettings(['t']).settings.start).toBe(LATEST);
    expect(consumeSettings(['t', '--from-beginning']).settings.start).toBe(EARLIEST);
    expect(consumeSettings(['t', '--offset', '17', '--partition', '1']).settings).toMatchObject({ start: 17, partition: 1 });
    expect(consumeSettings(['t', '--offset', 'earliest']).settings.start).toBe(EARLIEST);
  });

  it('refuses --group with --offset or --partition, and --offset with --from-beginning', () => {
    expect(() => consumeSettings(['t', '--group', 'g', '--offset', '1'])).toThrow(/--offset and --group/);
    expect(() => consumeSettings(['t', '--group', 'g', '--partition', '1'])).toThrow(/--partition and --group/);
    expect(() => consumeSettings(['t', '--offset', '1', '--from-beginning'])).toThrow(CliUsageError);
    expect(() => consumeSettings(['t', '--max-messages', '0'])).toThrow(/--max-messages 0/);
    expect(() => consumeSettings(['t', '--isolation-level', 'dirty'])).toThrow(/--isolation-level/);
  });
});

describe('group reset-offsets arguments', () => {
  const plan = (args: string[]) => resetPlan(parse(args, GROUP_OPTIONS).values);

  it('reads topics with partitions, one target, and --execute', () => {
    expect(plan(['--topic', 'a', '--topic', 'b:0,2', '--to-offset', '5', '--execute'])).toEqual({
      topics: [{ name: 'a', partitions: null }, { name: 'b', partitions: [0, 2] }], to: { kind: 'offset', offset: 5 }, execute: true,
    });
    expect(plan(['--all-topics', '--shift-by=-3'])).toEqual({ topics: null, to: { kind: 'shift', by: -3 }, execute: false });
  });

  it('needs exactly one target and topics or --all-topics', () => {
    expect(() => plan(['--topic', 'a'])).toThrow(/exactly one of/);
    expect(() => plan(['--topic', 'a', '--to-earliest', '--to-latest'])).toThrow(/exactly one of/);
    expect(() => plan(['--to-earliest'])).toThrow(/--topic T/);
    expect(() => plan(['--all-topics', '--topic', 'a', '--to-earliest'])).toThrow(/--topic T/);
    expect(() => plan(['--topic', 'a:x', '--to-earliest'])).toThrow(/TOPIC:P/);
  });
});
