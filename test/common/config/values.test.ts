// One value syntax for the broker's and the archiver's settings (common/config/values.ts).
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../archiver/src/config.js';
import { loadBrokerConfig } from '../../../broker/src/config/config.js';
import { parseBoolean, parseDurationMs, parseInteger } from '../../../common/config/values.js';

describe('setting values', () => {
  it('booleans are true or false in any case (Kafka ConfigDef); anything else is refused', () => {
    expect(['true', 'TRUE', ' True '].map(parseBoolean)).toEqual([true, true, true]);
    expect(['false', 'False'].map(parseBoolean)).toEqual([false, false]);
    expect(['1', 'yes', 'on', '0', 'no', ''].map(parseBoolean)).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
  });

  it('integers are whole numbers >= min; durations an integer count of the unit the key names', () => {
    expect(parseInteger('1048576')).toBe(1048576);
    expect(parseInteger('-1')).toBe(-1);
    expect([parseInteger('1.5'), parseInteger(''), parseInteger('ten'), parseInteger('-1', 0)]).toEqual([undefined, undefined, undefined, undefined]);
    expect(parseDurationMs('15000')).toBe(15000);
    expect(parseDurationMs('3', 'hours')).toBe(3 * 3_600_000);
    expect(parseDurationMs('90', 'minutes')).toBe(5_400_000);
    expect(parseDurationMs('soon', 'minutes')).toBeUndefined();
  });

  it('the broker and the archiver read a boolean the same way from a flag, the environment or a file', () => {
    expect(loadBrokerConfig(['--set', 'redis.allow.eviction=TRUE'], {}).redisAllowEviction).toBe(true);
    expect(loadBrokerConfig([], { RUNNEL_REDIS_ALLOW_EVICTION: 'False' }).redisAllowEviction).toBe(false);
    expect(loadConfig({ RUNNEL_ARCHIVER_VERIFY_CRC: 'FALSE' }).verifyCrc).toBe(false);
    expect(() => loadBrokerConfig(['--set', 'redis.allow.eviction=yes'], {})).toThrow(/RN3001.*redis\.allow\.eviction=yes is not true\/false/);
    expect(() => loadConfig({ RUNNEL_ARCHIVER_VERIFY_CRC: 'yes' })).toThrow(/RN3001.*RUNNEL_ARCHIVER_VERIFY_CRC=yes \(expected true\/false\)/);
    expect(() => loadConfig({ RUNNEL_ARCHIVER_LEASE_TTL_MS: '1.5' })).toThrow(/RN3001.*expected an integer >= 300/);
    expect(loadBrokerConfig(['--set', 'log.retention.hours=2'], {}).logRetentionMs).toBe(7_200_000);
  });
});
