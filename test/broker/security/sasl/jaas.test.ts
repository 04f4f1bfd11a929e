// Kafka's JAAS configuration text (sasl.jaas.config values).
import { describe, expect, it } from 'vitest';
import { parseJaasConfig, plainUsers } from '../../../../broker/src/security/sasl/jaas.js';

describe('JAAS config', () => {
  it("reads PlainLoginModule's user_<name> options as static users; username/password are not users", () => {
    const text = 'org.apache.kafka.common.security.plain.PlainLoginModule required\n  username="admin"\n  password="admin-secret"\n  user_admin="admin-secret"\n  user_alice="al ice \\"quoted\\" \\\\ pw";';
    expect([...plainUsers(text)]).toEqual([['admin', 'admin-secret'], ['alice', 'al ice "quoted" \\ pw']]);
  });

  it('parses several entries, unquoted values and every control flag; other login modules give no PLAIN users', () => {
    const e = parseJaasConfig('com.example.A optional a=1 b="two";  org.apache.kafka.common.security.scram.ScramLoginModule REQUIRED username=u password=p;');
    expect(e.map((x) => [x.loginModule, x.flag, Object.fromEntries(x.options)])).toEqual([
      ['com.example.A', 'optional', { a: '1', b: 'two' }],
      ['org.apache.kafka.common.security.scram.ScramLoginModule', 'required', { username: 'u', password: 'p' }],
    ]);
    expect(plainUsers('org.apache.kafka.common.security.scram.ScramLoginModule required user_x="y";').size).toBe(0);
  });

  it('refuses malformed text, saying where', () => {
    expect(() => parseJaasConfig('org.X required user_a="x"')).toThrow(/missing ';'/);
    expect(() => parseJaasConfig('org.X mandatory a=1;')).toThrow(/control flag/);
    expect(() => parseJaasConfig('org.X required a="x;')).toThrow(/unterminated quoted value/);
    expect(() => parseJaasConfig('org.X required a b;')).toThrow(/expected key=value/);
  });
});
