import { describe, expect, it } from 'vitest';
import { createLogger, redactSecrets, type Level } from '../../../common/logger/logger.js';

describe('redactSecrets', () => {
  it('removes the credentials of every URL, whatever the form', () => {
    expect(redactSecrets('redis://user:pw@h:6379/0')).toBe('redis://***@h:6379/0');
    expect(redactSecrets('rediss://:p@ss@h:1')).toBe('rediss://***@h:1');
    expect(redactSecrets('{"a":"redis://tok@h","b":"s3://k:s@bucket/x"}')).toBe('{"a":"redis://***@h","b":"s3://***@bucket/x"}');
  });

  it('leaves URLs without credentials and @ in paths alone', () => {
    expect(redactSecrets('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
    expect(redactSecrets('http://h/a@b')).toBe('http://h/a@b');
  });
});

function capture(level: Level, component = 'broker', fields?: Record<string, unknown>) {
  const lines: string[] = [];
  const log = createLogger(level, component, { fields, stream: { write: (l: string) => lines.push(l) } });
  return { log, lines, json: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('createLogger (pino, one JSON format for broker and archiver)', () => {
  it('writes one JSON line: level as a label, ISO time, component, fields, msg', () => {
    const { log, lines, json } = capture('info', 'archiver', { id: 'a-1' });
    const before = Date.now();
    log.info('committed', { table: 't', version: 3 });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.endsWith('\n')).toBe(true);
    const [e] = json();
    expect(e).toEqual({ level: 'info', time: expect.any(String), component: 'archiver', id: 'a-1', table: 't', version: 3, msg: 'committed' });
    expect(Math.abs(Date.parse(e!.time as string) - before)).toBeLessThan(5_000);
    expect(e!.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('drops lines below the level', () => {
    const { log, json } = capture('warn');
    log.debug('d');
    log.info('i');
    log.warn('w');
    log.error('e', { n: 1 });
    expect(json().map((e) => [e.level, e.msg])).toEqual([['warn', 'w'], ['error', 'e']]);
  });

  it('serializes Errors in any field (type, message, stack) and bigints as strings', () => {
    const { log, json } = capture('debug');
    log.error('failed', { error: new TypeError('bad thing'), err: new Error('other'), offset: 12n });
    const [e] = json();
    expect(e!.error).toMatchObject({ type: 'TypeError', message: 'bad thing', stack: expect.stringContaining('TypeError: bad thing') });
    expect(e!.err).toMatchObject({ type: 'Error', message: 'other' });
    expect(e!.offset).toBe('12');
  });

  it('redacts URL credentials anywhere in the line, messages and error stacks included', () => {
    const { log, lines } = capture('info');
    log.info('cannot connect to redis://:Sekr3t@h:6379', { url: 'rediss://u:pw@h', error: new Error('at s3://AK:SK@bucket') });
    expect(lines[0]).not.toMatch(/Sekr3t|pw@|AK:SK/);
    expect(lines[0]).toContain('redis://***@h:6379');
    expect(lines[0]).toContain('s3://***@bucket');
  });
});
