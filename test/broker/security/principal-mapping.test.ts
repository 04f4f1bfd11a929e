// ssl.principal.mapping.rules against Kafka's documented examples (Kafka's
// security docs, "Customizing SSL User Name", and SslPrincipalMapperTest), and
// the RFC 2253 subject of real certificates made with openssl.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PrincipalMapper, parseMappingRules, rfc2253 } from '../../../broker/src/security/principal-mapping.js';
import { runCommand } from '../../helpers/procs.js';

describe('ssl.principal.mapping.rules', () => {
  it("Kafka docs' example: service users, admins (lower-cased) and DEFAULT", () => {
    const m = new PrincipalMapper('RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L,RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/L,DEFAULT');
    expect(m.map('CN=serviceuser,OU=ServiceUsers,O=Unknown,L=Unknown,ST=Unknown,C=Unknown')).toBe('serviceuser');
    expect(m.map('CN=adminUser,OU=Admin,O=Unknown,L=Unknown,ST=Unknown,C=Unknown')).toBe('adminuser@admin');
  });

  it("Kafka's SslPrincipalMapperTest mapping cases", () => {
    const m = new PrincipalMapper('RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L, RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L, RULE:^cn=(.*?),ou=(.*?),dc=(.*?),dc=(.*?)$/$1@$2/U, RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/U, DEFAULT');
    expect(m.map('CN=Duke,OU=ServiceUsers,O=Org,C=US')).toBe('duke');
    expect(m.map('CN=Duke,OU=SME,O=mycp,L=Fulton,ST=MD,C=US')).toBe('duke@sme');
    expect(m.map('cn=duke,ou=sme,dc=mycp,dc=com')).toBe('DUKE@SME');
    expect(m.map('cN=duke,OU=JavaSoft,O=Sun Microsystems')).toBe('DUKE');
    expect(m.map('OU=JavaSoft,O=Sun Microsystems,C=US')).toBe('OU=JavaSoft,O=Sun Microsystems,C=US');
  });

  it('commas inside a pattern, escaped slashes, $n past the last group kept literally', () => {
    expect(new PrincipalMapper('RULE:^CN=([^,ADEFLTU,]+)(,.*|$)/$1/').map('CN=bob,OU=eng')).toBe('bob');
    expect(new PrincipalMapper('RULE:^CN=([^,]+)\\/x,.*$/$1\\/y/').map('CN=a/x,OU=eng')).toBe('a/y');
    expect(new PrincipalMapper('RULE:^CN=([^,]+).*$/$1-$2/').map('CN=a,OU=eng')).toBe('a-$2');
  });

  it('DEFAULT (also the empty list) keeps the DN; no applicable rule is null (Kafka refuses the client)', () => {
    expect(new PrincipalMapper('DEFAULT').map('CN=alice,OU=eng')).toBe('CN=alice,OU=eng');
    expect(new PrincipalMapper('').map('CN=alice')).toBe('CN=alice');
    expect(new PrincipalMapper('RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/').map('CN=alice,OU=eng')).toBeNull();
  });

  it("Kafka's valid and invalid rule lists", () => {
    for (const ok of ['DEFAULT', 'RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/', 'RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L, DEFAULT',
      'RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/', 'RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/L',
      'RULE:^cn=(.?),ou=(.?),dc=(.?),dc=(.?)$/$1@$2/U', 'RULE:^CN=([^,ADEFLTU,]+)(,.*|$)/$1/', 'RULE:^CN=([^,DEFAULT,]+)(,.*|$)/$1/']) {
      expect(() => parseMappingRules(ok), ok).not.toThrow();
    }
    for (const bad of ['default', 'DEFAUL', 'DEFAULT/L', 'DEFAULT/U', 'RULE:CN=(.*?),OU=ServiceUsers.*/$1', 'rule:^CN=(.*?),OU=ServiceUsers.*$/$1/',
      'RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L/U', 'RULE:^CN=(.*?),OU=ServiceUsers.*$/L', 'RULE:^CN=(.*?),OU=ServiceUsers.*$/U', 'RULE:^CN=(.*?),OU=ServiceUsers.*$/LU']) {
      expect(() => parseMappingRules(bad), bad).toThrow(/RN3001/);
    }
  });
});

describe('RFC 2253 subject of a certificate', () => {
  it("openssl subject /C=US/O=Acme, Inc./OU=eng/CN=alice is CN=alice,OU=eng,O=Acme\\, Inc.,C=US (Java's X500Principal order and escaping)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rn-dn-'));
    const r = await runCommand('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'k.pem', '-out', 'c.pem',
      '-days', '1', '-subj', '/C=US/O=Acme, Inc./OU=eng/CN=alice'], { cwd: dir, timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    const cert = new X509Certificate(fs.readFileSync(path.join(dir, 'c.pem')));
    expect(rfc2253(cert.subject)).toBe('CN=alice,OU=eng,O=Acme\\, Inc.,C=US');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
