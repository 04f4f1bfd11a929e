// The SCRAM client against RFC 7677's SCRAM-SHA-256 example exchange.
import { describe, expect, it } from 'vitest';
import { ScramClient } from '../../../cli/kafka/sasl.js';

describe('ScramClient', () => {
  it('computes RFC 7677 section 3 proof and accepts its server signature', () => {
    const c = new ScramClient('sha256', 'user', 'pencil', 'rOprNGfwEbeRWgbNEkqO');
    expect(c.first().toString()).toBe('n,,n=user,r=rOprNGfwEbeRWgbNEkqO');
    const final = c.final(Buffer.from('r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096'));
    expect(final.toString()).toBe('c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=');
    expect(() => c.verify(Buffer.from('v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4='))).not.toThrow();
    expect(() => c.verify(Buffer.from('v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4='))).toThrow(/signature does not match/);
    expect(() => c.verify(Buffer.from('e=invalid-proof'))).toThrow(/invalid-proof/);
  });

  it('refuses a server nonce that does not extend its own', () => {
    const c = new ScramClient('sha512', 'u', 'p', 'abc');
    expect(() => c.final(Buffer.from('r=xyz123,s=AAAA,i=4096'))).toThrow(/bad server-first/);
  });
});
