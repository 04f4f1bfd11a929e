// SCRAM server exchanges: RFC 7677's SCRAM-SHA-256 example byte for byte, and
// a SCRAM-SHA-512 exchange driven by a client written here from RFC 5802.
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { credentialFromPassword, SCRAM_SHA_256, SCRAM_SHA_512, type ScramCredential, type ScramMechanism } from '../../../../broker/src/security/sasl/credentials.js';
import { SaslAuthenticationFailure } from '../../../../broker/src/security/sasl/mechanism.js';
import { decodeSaslName, ScramServer } from '../../../../broker/src/security/sasl/scram.js';

const lookupOf = (users: Record<string, ScramCredential>) => async (u: string): Promise<ScramCredential | null> => users[u] ?? null;

describe('SCRAM-SHA-256, RFC 7677 section 3', () => {
  it('answers the example exchange exactly', async () => {
    const salt = Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64');
    const cred = await credentialFromPassword(SCRAM_SHA_256, 'pencil', salt, 4096);
    const server = new ScramServer(SCRAM_SHA_256, lookupOf({ user: cred }), '%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0');
    const first = await server.evaluate(Buffer.from('n,,n=user,r=rOprNGfwEbeRWgbNEkqO'));
    expect(first.toString()).toBe('r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096');
    expect(server.complete).toBe(false);
    const final = await server.evaluate(Buffer.from('c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ='));
    expect(final.toString()).toBe('v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=');
    expect(server.complete).toBe(true);
    expect(server.username).toBe('user');
  });

  it('refuses the example proof against another password, with Kafka\'s message', async () => {
    const salt = Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64');
    const cred = await credentialFromPassword(SCRAM_SHA_256, 'pencil2', salt, 4096);
    const server = new ScramServer(SCRAM_SHA_256, lookupOf({ user: cred }), '%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0');
    await server.evaluate(Buffer.from('n,,n=user,r=rOprNGfwEbeRWgbNEkqO'));
    await expect(server.evaluate(Buffer.from('c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=')))
      .rejects.toThrow(new SaslAuthenticationFailure('Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256'));
    expect(server.complete).toBe(true);
    expect(server.username).toBeNull();
  });
});

/** The client side of RFC 5802, independent of the server code. */
async function clientExchange(m: ScramMechanism, server: ScramServer, user: string, password: string, opts: { gs2?: string; cbind?: string; nonceOverride?: string; noncePrefix?: string } = {}): Promise<{ serverFinal: string; expectedSignature: string }> {
  const hash = m.hash;
  const nonce = randomBytes(18).toString('base64');
  const gs2 = opts.gs2 ?? 'n,,';
  const bare = `n=${user.replace(/=/g, '=3D').replace(/,/g, '=2C')},r=${nonce}`;
  const serverFirst = (await server.evaluate(Buffer.from(gs2 + bare))).toString();
  const attrs = Object.fromEntries(serverFirst.split(',').map((a) => [a[0], a.slice(2)]));
  expect(attrs.r!.startsWith(nonce)).toBe(true);
  const salted = pbkdf2Sync(password, Buffer.from(attrs.s!, 'base64'), Number(attrs.i), m.hashBytes, hash);
  const clientKey = createHmac(hash, salted).update('Client Key').digest();
  const storedKey = createHash(hash).update(clientKey).digest();
  const withoutProof = `c=${opts.cbind ?? Buffer.from(gs2).toString('base64')},r=${opts.nonceOverride ?? (opts.noncePrefix ?? '') + attrs.r}`;
  const authMessage = `${bare},${serverFirst},${withoutProof}`;
  const signature = createHmac(hash, storedKey).update(authMessage).digest();
  const proof = Buffer.from(clientKey.map((b, i) => b ^ signature[i]!));
  const serverKey = createHmac(hash, salted).update('Server Key').digest();
  const serverFinal = (await server.evaluate(Buffer.from(`${withoutProof},p=${proof.toString('base64')}`))).toString();
  return { serverFinal, expectedSignature: `v=${createHmac(hash, serverKey).update(authMessage).digest('base64')}` };
}

describe('SCRAM-SHA-512 exchange', () => {
  const salt = Buffer.from('a-salt-of-16-byt');
  it('authenticates the right password and proves the server knows the credential', async () => {
    const cred = await credentialFromPassword(SCRAM_SHA_512, 'alice-secret', salt, 8192);
    const server = new ScramServer(SCRAM_SHA_512, lookupOf({ 'al,i=ce': cred }));
    const r = await clientExchange(SCRAM_SHA_512, server, 'al,i=ce', 'alice-secret');
    expect(r.serverFinal).toBe(r.expectedSignature);
    expect(server.username).toBe('al,i=ce');
  });

  it('accepts an authzid equal to the user (n,a=alice,)', async () => {
    const cred = await credentialFromPassword(SCRAM_SHA_512, 'pw', salt, 4096);
    const server = new ScramServer(SCRAM_SHA_512, lookupOf({ alice: cred }));
    const r = await clientExchange(SCRAM_SHA_512, server, 'alice', 'pw', { gs2: 'n,a=alice,' });
    expect(r.serverFinal).toBe(r.expectedSignature);
  });

  it("accepts librdkafka's final nonce (client nonce repeated before the server-first nonce), as Kafka does", async () => {
    const cred = await credentialFromPassword(SCRAM_SHA_512, 'pw', salt, 4096);
    const server = new ScramServer(SCRAM_SHA_512, lookupOf({ alice: cred }));
    // The client nonce of clientExchange is random, so prefix the server's r with a fixed string the way librdkafka does.
    const r = await clientExchange(SCRAM_SHA_512, server, 'alice', 'pw', { noncePrefix: 'cnonce-again' });
    expect(r.serverFinal).toBe(r.expectedSignature);
  });

  const refusals: Array<[string, string, Parameters<typeof clientExchange>[4]]> = [
    ['a wrong password', 'wrong', {}],
    ['an unknown user', 'pw', {}],
    ['a changed nonce', 'pw', { nonceOverride: 'other' }],
    ['a channel binding other than the gs2 header', 'pw', { cbind: Buffer.from('y,,').toString('base64') }],
  ];
  for (const [what, password, opts] of refusals) {
    it(`refuses ${what}`, async () => {
      const cred = await credentialFromPassword(SCRAM_SHA_512, 'pw', salt, 4096);
      const users: Record<string, ScramCredential> = what === 'an unknown user' ? {} : { alice: cred };
      const server = new ScramServer(SCRAM_SHA_512, lookupOf(users));
      await expect(clientExchange(SCRAM_SHA_512, server, 'alice', password, opts)).rejects.toThrow('invalid credentials with SASL mechanism SCRAM-SHA-512');
      expect(server.username).toBeNull();
    });
  }

  it('gives an unknown user a stable made-up salt (no user enumeration by the first answer)', async () => {
    const a = (await new ScramServer(SCRAM_SHA_512, lookupOf({})).evaluate(Buffer.from('n,,n=ghost,r=abc'))).toString();
    const b = (await new ScramServer(SCRAM_SHA_512, lookupOf({})).evaluate(Buffer.from('n,,n=ghost,r=abc'))).toString();
    expect(a.split(',').slice(1)).toEqual(b.split(',').slice(1));
    expect(a).toMatch(/^r=abc[^,]+,s=[A-Za-z0-9+/=]+,i=4096$/);
  });

  it("ignores Kafka's extensions after the nonce (tokenauth=true)", async () => {
    const cred = await credentialFromPassword(SCRAM_SHA_512, 'pw', salt, 4096);
    const first = (await new ScramServer(SCRAM_SHA_512, lookupOf({ alice: cred })).evaluate(Buffer.from('n,,n=alice,r=abc,tokenauth=true'))).toString();
    expect(first).toMatch(/^r=abc[^,]+,s=/);
  });

  it('refuses malformed first messages: channel binding requested, authzid of another user, bad saslname', async () => {
    for (const msg of ['p=tls-unique,,n=alice,r=x', 'y,,n=alice,r=x', 'n,a=bob,n=alice,r=x', 'n,,n=al=ice,r=x', 'n,,r=x', '']) {
      await expect(new ScramServer(SCRAM_SHA_512, lookupOf({})).evaluate(Buffer.from(msg))).rejects.toBeInstanceOf(SaslAuthenticationFailure);
    }
  });

  it('decodes RFC 5802 saslnames', () => {
    expect(decodeSaslName('a=2Cb=3Dc')).toBe('a,b=c');
    expect(decodeSaslName('a=b')).toBeNull();
  });
});
