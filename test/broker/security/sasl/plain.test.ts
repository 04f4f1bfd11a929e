// SASL/PLAIN messages (RFC 4616) and Kafka's PlainSaslServer messages.
import { describe, expect, it } from 'vitest';
import { parsePlainMessage, PlainServer, PLAIN_INVALID_CREDENTIALS } from '../../../../broker/src/security/sasl/plain.js';
import { SaslAuthenticationFailure } from '../../../../broker/src/security/sasl/mechanism.js';

describe('SASL/PLAIN', () => {
  it('parses authzid NUL user NUL password; the authzid may be empty or the user', () => {
    expect(parsePlainMessage(Buffer.from('\u0000alice\u0000s3cr=t,;'))).toEqual({ authzid: '', username: 'alice', password: 's3cr=t,;' });
    expect(parsePlainMessage(Buffer.from('alice\u0000alice\u0000pw'))).toEqual({ authzid: 'alice', username: 'alice', password: 'pw' });
  });

  it("refuses malformed messages with Kafka's texts", () => {
    const cases: Array<[string, string]> = [
      ['alice\u0000pw', 'Invalid SASL/PLAIN response: expected 3 tokens, got 2'],
      ['\u0000a\u0000b\u0000c', 'Invalid SASL/PLAIN response: expected 3 tokens, got 4'],
      ['\u0000\u0000pw', 'Authentication failed: username not specified'],
      ['\u0000alice\u0000', 'Authentication failed: password not specified'],
      ['bob\u0000alice\u0000pw', 'Authentication failed: Client requested an authorization id that is different from username'],
    ];
    for (const [msg, text] of cases) expect(() => parsePlainMessage(Buffer.from(msg))).toThrow(new SaslAuthenticationFailure(text));
  });

  it('completes in one step when the password check passes, and fails with "Invalid username or password" otherwise', async () => {
    const asked: string[] = [];
    const ok = new PlainServer(async (u, p) => { asked.push(`${u}/${p}`); return p === 'right'; });
    expect((await ok.evaluate(Buffer.from('\u0000alice\u0000right'))).length).toBe(0);
    expect([ok.complete, ok.username]).toEqual([true, 'alice']);
    await expect(ok.evaluate(Buffer.from('\u0000alice\u0000right'))).rejects.toBeInstanceOf(SaslAuthenticationFailure);
    const bad = new PlainServer(async (_u, p) => p === 'right');
    await expect(bad.evaluate(Buffer.from('\u0000alice\u0000wrong'))).rejects.toThrow(PLAIN_INVALID_CREDENTIALS);
    expect([bad.complete, bad.username]).toEqual([false, null]);
    expect(PLAIN_INVALID_CREDENTIALS).toBe('Authentication failed: Invalid username or password');
    expect(asked).toEqual(['alice/right']);
  });
});
