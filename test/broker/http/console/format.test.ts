// How the console shows record bytes (JSON pretty-printed, text, escaped
// binary), sizes and times.
import { describe, expect, it } from 'vitest';
import { formatBytes, formatTime, showBytes } from '../../../../broker/src/http/console/format.js';

describe('console formatting', () => {
  it('JSON objects and arrays are pretty-printed; other text stays as sent', () => {
    expect(showBytes(Buffer.from('{"a":1,"b":[true,null]}'))).toEqual({ kind: 'json', text: '{\n  "a": 1,\n  "b": [\n    true,\n    null\n  ]\n}' });
    expect(showBytes(Buffer.from(' [1,2] '))).toEqual({ kind: 'json', text: '[\n  1,\n  2\n]' });
    expect(showBytes(Buffer.from('{not json'))).toEqual({ kind: 'text', text: '{not json' });
    expect(showBytes(Buffer.from('42'))).toEqual({ kind: 'text', text: '42' });
    expect(showBytes(Buffer.from('héllo <b>\n\tworld'))).toEqual({ kind: 'text', text: 'héllo <b>\n\tworld' });
  });

  it('null is null; bytes that are not UTF-8 (or hold control characters) are \\xNN escapes', () => {
    expect(showBytes(null)).toEqual({ kind: 'null' });
    expect(showBytes(Buffer.alloc(0))).toEqual({ kind: 'text', text: '' });
    expect(showBytes(Buffer.from([0x00, 0x41, 0xff, 0x5c, 0x7f]))).toEqual({ kind: 'binary', text: '\\x00A\\xff\\x5c\\x7f' });
    expect(showBytes(Buffer.from([0x61, 0x01, 0x62]))).toEqual({ kind: 'binary', text: 'a\\x01b' });
    expect(showBytes(Buffer.from('a\u000bb'))).toEqual({ kind: 'text', text: 'a\\x0bb' });
  });

  it('sizes in B/KiB/MiB, times in ISO-8601 UTC', () => {
    expect([0, 1023, 1024, 1536, 5 * 1024 * 1024, 3 * 1024 ** 4].map(formatBytes)).toEqual(['0 B', '1023 B', '1.0 KiB', '1.5 KiB', '5.0 MiB', '3.0 TiB']);
    expect(formatTime(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(formatTime(Date.UTC(2026, 0, 2, 3, 4, 5, 6))).toBe('2026-01-02T03:04:05.006Z');
    expect([formatTime(-1), formatTime(null)]).toEqual(['-', '-']);
  });
});
