// log.format as the broker and the archiver read it: json unless set, pretty
// through the key, RUNNEL_LOG_FORMAT or --log-format, anything else refused.
import { describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../../broker/src/config/config.js';
import { loadConfig } from '../../../archiver/src/config.js';
import { archiverEnv, ARCHIVER_OPTIONS } from '../../../cli/archiver-flags.js';
import { parseArgs } from 'node:util';

describe('log.format (broker)', () => {
  it('is json by default, pretty through --set, RUNNEL_LOG_FORMAT or --log-format', () => {
    expect(loadBrokerConfig([], {}).logFormat).toBe('json');
    expect(loadBrokerConfig(['--set', 'log.format=pretty'], {}).logFormat).toBe('pretty');
    expect(loadBrokerConfig([], { RUNNEL_LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(loadBrokerConfig(['--log-format', 'json'], { RUNNEL_LOG_FORMAT: 'pretty' }).logFormat).toBe('json');
  });

  it('refuses another value', () => {
    expect(() => loadBrokerConfig(['--set', 'log.format=text'], {})).toThrow(/log\.format=text \(expected json or pretty\)/);
  });
});

describe('RUNNEL_LOG_FORMAT (archiver)', () => {
  it('is json by default, pretty through the variable or --log-format', () => {
    expect(loadConfig({}).logFormat).toBe('json');
    expect(loadConfig({ RUNNEL_LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    const flags = parseArgs({ args: ['--log-format', 'pretty'], options: ARCHIVER_OPTIONS, strict: true }).values;
    expect(loadConfig(archiverEnv(flags, {})).logFormat).toBe('pretty');
  });

  it('refuses another value', () => {
    expect(() => loadConfig({ RUNNEL_LOG_FORMAT: 'Pretty' })).toThrow(/RUNNEL_LOG_FORMAT=Pretty \(expected json or pretty\)/);
  });
});
