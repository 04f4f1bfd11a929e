// The HTTP endpoint and the authorizer: with authorizer.class.name set,
// http.port needs credentials (RN3003, naming the settings that fix it); a
// request's principal is User:<basic user>, http.auth.bearer.principal for a
// bearer token, or User:<subject DN> of a client certificate.
import { describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../../broker/src/config/config.js';
import { brokerHttpSettings } from '../../../broker/src/http/broker-http.js';
import { httpPrincipal } from '../../../broker/src/http/http-access.js';

const AUTHORIZER = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
const sets = (kv: Record<string, string>) => Object.entries(kv).flatMap(([k, v]) => ['--set', `${k}=${v}`]);
const settings = (kv: Record<string, string>) => brokerHttpSettings(loadBrokerConfig(sets(kv), {}));

describe('http.* with an authorizer', () => {
  it('refuses http.port without credentials (RN3003), naming the fix', () => {
    expect(() => settings({ 'authorizer.class.name': AUTHORIZER, 'http.port': '9101' })).toThrow(
      /^RN3003 http endpoints would bypass the authorizer: authorizer\.class\.name is set but http\.port=9101 has no credentials.*set http\.auth\.basic\.user and http\.auth\.basic\.password \(or http\.auth\.bearer\.token, or http\.ssl\.client\.auth=required\), or leave http\.port unset$/,
    );
    // Client certificates only "requested" are no credential: a client may send none.
    expect(() => settings({ 'authorizer.class.name': AUTHORIZER, 'http.port': '9101', 'http.ssl.keystore.location': '/k.pem', 'http.ssl.truststore.location': '/ca.pem', 'http.ssl.client.auth': 'requested' })).toThrow(/^RN3003/);
  });

  it('takes basic, bearer or required client certificates; no authorizer or no http.port needs none', () => {
    expect(settings({ 'authorizer.class.name': AUTHORIZER, 'http.port': '9101', 'http.auth.basic.user': 'ops', 'http.auth.basic.password': 'pw' }).basicUser).toBe('ops');
    expect(settings({ 'authorizer.class.name': AUTHORIZER, 'http.port': '9101', 'http.auth.bearer.token': 'tok' }).bearerToken).toBe('tok');
    expect(settings({ 'authorizer.class.name': AUTHORIZER, 'http.port': '9101', 'http.ssl.keystore.location': '/k.pem', 'http.ssl.truststore.location': '/ca.pem', 'http.ssl.client.auth': 'required' }).clientAuth).toBe('required');
    expect(settings({ 'http.port': '9101' }).port).toBe(9101);
    expect(settings({ 'authorizer.class.name': AUTHORIZER }).port).toBe(0);
  });
});

describe('httpPrincipal', () => {
  const s = { bearerToken: 'tok', basicUser: 'ops' };
  const cert = { getPeerX509Certificate: () => ({ subject: 'C=US\nO=org\nCN=alice' }) };
  it('basic: User:<http.auth.basic.user>; bearer: http.auth.bearer.principal (User:ANONYMOUS by default); certificate: User:<DN>', () => {
    expect(httpPrincipal(s, 'User:ANONYMOUS', `Basic ${Buffer.from('ops:pw').toString('base64')}`, {})).toBe('User:ops');
    expect(httpPrincipal(s, 'User:ANONYMOUS', 'Bearer tok', {})).toBe('User:ANONYMOUS');
    expect(httpPrincipal(s, 'User:console', 'bearer tok', {})).toBe('User:console');
    expect(httpPrincipal({ bearerToken: '', basicUser: '' }, 'User:ANONYMOUS', undefined, cert)).toBe('User:CN=alice,O=org,C=US');
    expect(httpPrincipal({ bearerToken: '', basicUser: '' }, 'User:ANONYMOUS', undefined, {})).toBe('User:ANONYMOUS');
    expect(loadBrokerConfig([], {}).httpAuthBearerPrincipal).toBe('User:ANONYMOUS');
  });
});
