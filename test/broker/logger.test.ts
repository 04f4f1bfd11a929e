import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../broker/src/logger.js';

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
