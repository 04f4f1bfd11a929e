import { describe, expect, it } from 'vitest';
import { createLogger, isLogFormat, redactSecrets, setLogFormat, type Level } from '../../../common/logger/logger.js';

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

function pretty(level: Level, fields?: Record<string, unknown>, stream: { isTTY?: boolean } = {}) {
  const lines: string[] = [];
  const log = createLogger(level, 'broker', { fields, format: 'pretty', stream: { ...stream, write: (l: string) => lines.push(l) } });
  return { log, lines };
}

const HEAD = /^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3})\] /;

describe('createLogger with format pretty (pino-pretty, for a terminal)', () => {
  it('writes one line: [UTC time] LEVEL (component): msg, then key=value fields', () => {
    const { log, lines } = pretty('info', { id: 'a-1' });
    const before = Date.now();
    log.info('runnel broker listening', { host: '127.0.0.1', port: 9092, tls: false, note: 'two words', empty: '', n: null, tags: ['a'], offset: 12n });
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(() => JSON.parse(line)).toThrow();
    const time = HEAD.exec(line)![1]!;
    expect(Math.abs(Date.parse(`${time.replace(' ', 'T')}Z`) - before)).toBeLessThan(5_000);
    expect(line.replace(HEAD, '')).toBe('INFO (broker): runnel broker listening id=a-1 host=127.0.0.1 port=9092 tls=false note="two words" empty="" n=null tags=["a"] offset=12\n');
  });

  it('prints each level in capitals and drops those below the level', () => {
    const { log, lines } = pretty('debug');
    log.debug('d');
    log.info('i');
    log.warn('w');
    log.error('e');
    expect(lines.map((l) => l.replace(HEAD, ''))).toEqual(['DEBUG (broker): d\n', 'INFO (broker): i\n', 'WARN (broker): w\n', 'ERROR (broker): e\n']);
    const quiet = pretty('warn');
    quiet.log.info('i');
    expect(quiet.lines).toEqual([]);
  });

  it('prints Errors under the line with their type, message and stack, whatever the field', () => {
    const { log, lines } = pretty('info');
    log.error('append failed', { partition: 3, error: new TypeError('bad thing'), err: new RangeError('other') });
    expect(lines).toHaveLength(1);
    const [head, ...rest] = lines[0]!.split('\n');
    expect(head!.replace(HEAD, '')).toBe('ERROR (broker): append failed partition=3');
    const body = rest.join('\n');
    expect(body).toMatch(/^ {4}error: \{/m);
    expect(body).toMatch(/^ {4}err: \{/m);
    expect(body).toContain('"type": "TypeError"');
    expect(body).toContain('"message": "bad thing"');
    expect(body).toMatch(/^ +TypeError: bad thing$/m);
    expect(body).toMatch(/^ +at .*logger\.test\.ts/m); // the stack's frames, one per line
    expect(body).toContain('"type": "RangeError"');
  });

  it('redacts URL credentials before formatting', () => {
    const { log, lines } = pretty('info');
    log.warn('cannot connect to redis://:Sekr3t@h:6379', { url: 'rediss://u:pw@h', error: new Error('at s3://AK:SK@bucket') });
    expect(lines[0]).not.toMatch(/Sekr3t|pw@|AK:SK/);
    expect(lines[0]).toContain('redis://***@h:6379');
    expect(lines[0]).toContain('url=rediss://***@h');
  });

  it('colours the level on a TTY unless NO_COLOR is set', () => {
    const saved = process.env.NO_COLOR;
    try {
      delete process.env.NO_COLOR;
      const tty = pretty('info', undefined, { isTTY: true });
      tty.log.error('e');
      expect(tty.lines[0]).toContain('\u001b[31mERROR\u001b[39m');
      process.env.NO_COLOR = '1';
      const plain = pretty('info', undefined, { isTTY: true });
      plain.log.error('e');
      expect(plain.lines[0]).not.toContain('\u001b[');
    } finally {
      if (saved === undefined) delete process.env.NO_COLOR;
      else process.env.NO_COLOR = saved;
    }
  });
});

describe('the process format (setLogFormat)', () => {
  it('is JSON unless set, on a TTY too; set, it reaches loggers made before', () => {
    const lines: string[] = [];
    const log = createLogger('info', 'broker', { stream: { isTTY: true, write: (l: string) => lines.push(l) } });
    log.info('first');
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'info', component: 'broker', msg: 'first' });
    try {
      setLogFormat('pretty');
      log.info('second');
      expect(lines[1]!.replace(HEAD, '').replace(/\u001b\[\d+m/g, '')).toBe('INFO (broker): second\n'); // coloured: a TTY
      const explicit: string[] = [];
      createLogger('info', 'broker', { format: 'json', stream: { write: (l: string) => explicit.push(l) } }).info('third');
      expect(JSON.parse(explicit[0]!)).toMatchObject({ msg: 'third' }); // an explicit format wins
    } finally {
      setLogFormat('json');
    }
  });

  it('isLogFormat accepts json and pretty only', () => {
    expect(['json', 'pretty', 'PRETTY', 'text', ''].map(isLogFormat)).toEqual([true, true, false, false, false]);
  });
});
