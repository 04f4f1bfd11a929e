// `runnel user`: the mechanism flag and the SCRAM salted password, checked
// against RFC 7677's SCRAM-SHA-256 test vector (user, pencil, 4096 iterations).
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mechanismOf, saltedPassword, scramSalt, USER_OPTIONS } from '../../../cli/commands/user.js';
import { parse } from '../../../cli/commands/common.js';

const values = (args: string[]) => parse(args, USER_OPTIONS).values;
const hmac = (hash: string, key: Buffer, data: string) => crypto.createHmac(hash, key).update(data).digest();

describe('user arguments', () => {
  it('reads SCRAM-SHA-256 and SCRAM-SHA-512 as ScramMechanism 1 and 2, and refuses others', () => {
    expect(mechanismOf(values(['--mechanism', 'SCRAM-SHA-256']))).toBe(1);
    expect(mechanismOf(values(['--mechanism', 'scram-sha-512']))).toBe(2);
    expect(() => mechanismOf(values([]))).toThrow(/required/);
    expect(() => mechanismOf(values(['--mechanism', 'PLAIN']))).toThrow(/expected/);
  });

  it('salts the password as RFC 7677 does: the client proof of its example follows from the salted password', () => {
    const salt = Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64');
    const salted = saltedPassword(1, 'pencil', salt, 4096);
    const clientKey = hmac('sha256', salted, 'Client Key');
    const storedKey = crypto.createHash('sha256').update(clientKey).digest();
    const authMessage = 'n=user,r=rOprNGfwEbeRWgbNEkqO,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0';
    const sig = hmac('sha256', storedKey, authMessage);
    const proof = Buffer.from(clientKey.map((b, i) => b ^ sig[i]!));
    expect(proof.toString('base64')).toBe('dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=');
    expect(saltedPassword(2, 'pencil', salt, 4096)).toHaveLength(64);
  });

  it('draws a fresh base-36 salt each time, as Kafka ScramFormatter does', () => {
    const a = scramSalt();
    const b = scramSalt();
    expect(a.toString()).toMatch(/^[0-9a-z]{20,26}$/);
    expect(a.equals(b)).toBe(false);
  });
});
