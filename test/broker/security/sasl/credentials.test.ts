// SCRAM credential arithmetic (RFC 5802 section 3) and Kafka's text form.
import { createHash, createHmac, pbkdf2Sync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  credentialFromPassword, credentialFromSaltedPassword, formatCredential, parseCredential, passwordMatches, SCRAM_SHA_256, SCRAM_SHA_512,
} from '../../../../broker/src/security/sasl/credentials.js';

describe('SCRAM credentials', () => {
  it('StoredKey and ServerKey follow RFC 5802 from the salted password (checked with independent arithmetic)', async () => {
    const salt = Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64');
    const salted = pbkdf2Sync('pencil', salt, 4096, 64, 'sha512');
    const c = credentialFromSaltedPassword(SCRAM_SHA_512, salted, salt, 4096);
    const clientKey = createHmac('sha512', salted).update('Client Key').digest();
    expect(c.storedKey.equals(createHash('sha512').update(clientKey).digest())).toBe(true);
    expect(c.serverKey.equals(createHmac('sha512', salted).update('Server Key').digest())).toBe(true);
    expect((await credentialFromPassword(SCRAM_SHA_512, 'pencil', salt, 4096)).storedKey.equals(c.storedKey)).toBe(true);
  });

  it('a password matches its credential and no other password does', async () => {
    for (const m of [SCRAM_SHA_256, SCRAM_SHA_512]) {
      const c = await credentialFromPassword(m, 'alice-secret', Buffer.from('0123456789abcdef'), 4096);
      expect(await passwordMatches(m, 'alice-secret', c)).toBe(true);
      expect(await passwordMatches(m, 'alice-secreT', c)).toBe(false);
      expect(await passwordMatches(m, '', c)).toBe(false);
    }
  });

  it("round-trips Kafka's salt=..,stored_key=..,server_key=..,iterations=.. form", async () => {
    const c = await credentialFromPassword(SCRAM_SHA_256, 'pw', Buffer.from('salt-bytes'), 8192);
    const text = formatCredential(c);
    expect(text).toMatch(/^salt=[A-Za-z0-9+/=]+,stored_key=[A-Za-z0-9+/=]+,server_key=[A-Za-z0-9+/=]+,iterations=8192$/);
    const back = parseCredential(text)!;
    expect(back.iterations).toBe(8192);
    expect(back.salt.equals(c.salt) && back.storedKey.equals(c.storedKey) && back.serverKey.equals(c.serverKey)).toBe(true);
    expect(text).not.toContain(Buffer.from('pw').toString('base64'));
    expect(parseCredential('salt=abc,iterations=x')).toBeNull();
  });
});
