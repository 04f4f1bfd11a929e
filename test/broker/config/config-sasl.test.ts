// SASL settings in Kafka's configuration language: a SASL_PLAINTEXT listener,
// sasl.* keys and the per-listener JAAS config (multi-line, as Kafka's docs write it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokerConfigEntries, loadBrokerConfig } from '../../../broker/src/config/config.js';
import { saslSettingsFromConfig } from '../../../broker/src/config/sasl.js';

function withFile(text: string): string {
  const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rn-sasl-cfg-')), 'server.properties');
  fs.writeFileSync(f, text);
  return f;
}

describe('SASL configuration', () => {
  it('a SASL_PLAINTEXT listener with a per-listener PLAIN JAAS config written over several lines (and Kafka\'s SCRAM JAAS line, accepted)', () => {
    const c = loadBrokerConfig(['--config', withFile([
      'listeners=SASL_PLAINTEXT://0.0.0.0:9094',
      'listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\',
      '    username="admin" \\',
      '    password="admin-secret" \\',
      '    user_admin="admin-secret" \\',
      '    user_alice="alice-secret";',
      'listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;',
      'sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-512',
      'connections.max.reauth.ms=60000',
      '',
    ].join('\n'))], {});
    expect([c.listeners[0]!.name, c.listeners[0]!.securityProtocol]).toEqual(['SASL_PLAINTEXT', 'SASL_PLAINTEXT']);
    expect(c.port).toBe(9094);
    const s = saslSettingsFromConfig(c, c.listeners[0]!.name);
    expect(s.enabledMechanisms).toEqual(['PLAIN', 'SCRAM-SHA-512']);
    expect(s.reauthMs).toBe(60000);
    expect(s.maxReceiveSize).toBe(524288);
    expect([...s.plainUsers]).toEqual([['admin', 'admin-secret'], ['alice', 'alice-secret']]);
  });

  it('a renamed listener mapped to SASL_PLAINTEXT; its listener.name.* keys beat the global ones', () => {
    const c = loadBrokerConfig(['--set', 'listeners=CLIENT://127.0.0.1:9095', '--set', 'listener.security.protocol.map=CLIENT:SASL_PLAINTEXT',
      '--set', 'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_global="g";',
      '--set', 'listener.name.client.sasl.enabled.mechanisms=SCRAM-SHA-256',
      '--set', 'sasl.server.max.receive.size=1000'], {});
    expect([c.listeners[0]!.name, c.listeners[0]!.securityProtocol]).toEqual(['CLIENT', 'SASL_PLAINTEXT']);
    const s = saslSettingsFromConfig(c, 'CLIENT');
    expect(s.enabledMechanisms).toEqual(['SCRAM-SHA-256']);
    expect([...s.plainUsers]).toEqual([['global', 'g']]);
    expect(s.maxReceiveSize).toBe(1000);
  });

  it('defaults: PLAIN,SCRAM-SHA-256,SCRAM-SHA-512, no session expiry, 512 KiB before authentication, failures answered after 100 ms', () => {
    const c = loadBrokerConfig([], {});
    expect([c.listeners[0]!.name, c.listeners[0]!.securityProtocol]).toEqual(['PLAINTEXT', 'PLAINTEXT']);
    const s = saslSettingsFromConfig(c, 'SASL_PLAINTEXT');
    expect(s.enabledMechanisms).toEqual(['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512']);
    expect(s.reauthMs).toBe(0);
    expect(s.maxReceiveSize).toBe(524288);
    expect(s.failedAuthenticationDelayMs).toBe(100);
  });

  it('refuses GSSAPI, OAUTHBEARER without its JWKS endpoint, and a malformed JAAS config, naming the key', () => {
    const bad = (sets: string[]): void => { const c = loadBrokerConfig(sets.flatMap((x) => ['--set', x]), {}); saslSettingsFromConfig(c, 'SASL_PLAINTEXT'); };
    expect(() => bad(['sasl.enabled.mechanisms=GSSAPI'])).toThrow(/sasl\.enabled\.mechanisms: SASL mechanism GSSAPI is not supported/);
    expect(() => bad(['listener.name.sasl_plaintext.sasl.enabled.mechanisms=OAUTHBEARER'])).toThrow(/: sasl\.oauthbearer\.jwks\.endpoint\.url: required when OAUTHBEARER is enabled on listener SASL_PLAINTEXT/);
    expect(() => bad(['sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_a="x"'])).toThrow(/sasl\.jaas\.config: missing ';'/);
  });

  it('sasl.jaas.config is sensitive: DescribeConfigs gets no value', () => {
    const c = loadBrokerConfig(['--set', 'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_a="pw-123";'], {});
    const e = brokerConfigEntries(c).find((x) => x.key === 'sasl.jaas.config')!;
    expect(e).toMatchObject({ value: null, sensitive: true });
    expect(JSON.stringify(brokerConfigEntries(c))).not.toContain('pw-123');
  });
});

describe('SASL/OAUTHBEARER configuration (Kafka\'s sasl.oauthbearer.* keys)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rn-oauth-cfg-'));
  const jwksFile = path.join(dir, 'jwks.json');
  fs.writeFileSync(jwksFile, '{"keys":[]}');
  const JWKS = `file://${jwksFile}`;
  const load = (sets: string[], env: NodeJS.ProcessEnv = {}) =>
    saslSettingsFromConfig(loadBrokerConfig(['--set', 'listeners=SASL_PLAINTEXT://127.0.0.1:9094,OTHER://127.0.0.1:9095', '--set', 'listener.security.protocol.map=SASL_PLAINTEXT:SASL_PLAINTEXT,OTHER:SASL_PLAINTEXT', ...sets.flatMap((x) => ['--set', x])], env), 'SASL_PLAINTEXT');

  it('reads every key, with Kafka\'s defaults (sub, scope, 30 s skew, 1 h refresh); the audience is a comma list', () => {
    const s = load(['sasl.enabled.mechanisms=OAUTHBEARER,SCRAM-SHA-512', `sasl.oauthbearer.jwks.endpoint.url=${JWKS}`, 'sasl.oauthbearer.expected.issuer=https://idp.test', 'sasl.oauthbearer.expected.audience=runnel, kafka']);
    expect(s.enabledMechanisms).toEqual(['OAUTHBEARER', 'SCRAM-SHA-512']);
    expect(s.oauthbearer).toEqual({ jwksEndpointUrl: JWKS, jwksRefreshMs: 3_600_000, expectedIssuer: 'https://idp.test', expectedAudience: ['runnel', 'kafka'], subClaimName: 'sub', scopeClaimName: 'scope', clockSkewSeconds: 30 });
    expect(load([]).oauthbearer).toBeNull();
  });

  it('listener.name.<l>.oauthbearer.sasl.oauthbearer.X beats listener.name.<l>.sasl.oauthbearer.X beats sasl.oauthbearer.X; RUNNEL_SASL_OAUTHBEARER_* env too', () => {
    const s = load([
      'listener.name.SASL_PLAINTEXT.sasl.enabled.mechanisms=OAUTHBEARER',
      'sasl.oauthbearer.jwks.endpoint.url=https://idp.test/jwks',
      'sasl.oauthbearer.expected.audience=global',
      'listener.name.sasl_plaintext.sasl.oauthbearer.expected.audience=listener',
      'listener.name.sasl_plaintext.oauthbearer.sasl.oauthbearer.expected.audience=mechanism',
      'listener.name.sasl_plaintext.sasl.oauthbearer.sub.claim.name=client_id',
      'listener.name.other.oauthbearer.sasl.oauthbearer.clock.skew.seconds=5',
      'sasl.oauthbearer.jwks.endpoint.refresh.ms=60000',
    ], { RUNNEL_SASL_OAUTHBEARER_EXPECTED_ISSUER: 'https://env.test' });
    expect(s.oauthbearer).toMatchObject({ jwksEndpointUrl: 'https://idp.test/jwks', expectedAudience: ['mechanism'], subClaimName: 'client_id', clockSkewSeconds: 30, jwksRefreshMs: 60_000, expectedIssuer: 'https://env.test' });
  });

  it('Kafka\'s listener.name.<l>.oauthbearer.sasl.jaas.config and .sasl.server.callback.handler.class are accepted and listed as ignored', () => {
    const c = loadBrokerConfig([
      '--set', 'listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;',
      '--set', 'listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler',
    ], {});
    expect(c.ignoredKeys).toEqual(['listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config', 'listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class']);
    expect(c.listenerOverrides).toBeUndefined();
  });

  it('refuses, naming the key: no JWKS, a JWKS file that does not exist, another protocol, no issuer or audience (unless allow.unverified.*), bad numbers', () => {
    const on = ['sasl.enabled.mechanisms=OAUTHBEARER'];
    const ok = [...on, `sasl.oauthbearer.jwks.endpoint.url=${JWKS}`, 'sasl.oauthbearer.expected.issuer=i', 'sasl.oauthbearer.expected.audience=a'];
    expect(() => load(on)).toThrow(/: sasl\.oauthbearer\.jwks\.endpoint\.url: required when OAUTHBEARER is enabled/);
    expect(() => load([...ok, `listener.name.sasl_plaintext.sasl.oauthbearer.jwks.endpoint.url=file://${dir}/missing.json`])).toThrow(/: listener\.name\.sasl_plaintext\.sasl\.oauthbearer\.jwks\.endpoint\.url: the file .*missing\.json does not exist/);
    expect(() => load([...ok, 'sasl.oauthbearer.jwks.endpoint.url=ftp://idp.test/jwks'])).toThrow(/has protocol ftp; only http, https and file are supported/);
    expect(() => load([...on, `sasl.oauthbearer.jwks.endpoint.url=${JWKS}`, 'sasl.oauthbearer.expected.audience=a'])).toThrow(/: sasl\.oauthbearer\.expected\.issuer: required so that the token's issuer/);
    expect(() => load([...on, `sasl.oauthbearer.jwks.endpoint.url=${JWKS}`, 'sasl.oauthbearer.expected.issuer=i'])).toThrow(/: sasl\.oauthbearer\.expected\.audience: required so that the token's audience/);
    expect(load([...on, `sasl.oauthbearer.jwks.endpoint.url=${JWKS}`, 'sasl.oauthbearer.allow.unverified.issuer=true', 'sasl.oauthbearer.allow.unverified.audience=true']).oauthbearer)
      .toMatchObject({ expectedIssuer: null, expectedAudience: [] });
    expect(() => load([...ok, 'sasl.oauthbearer.clock.skew.seconds=-1'])).toThrow(/: sasl\.oauthbearer\.clock\.skew\.seconds: expected an integer >= 0, got '-1'/);
    expect(() => load([...ok, 'sasl.oauthbearer.jwks.endpoint.refresh.ms=soon'])).toThrow(/refresh\.ms: expected an integer >= 1/);
  });
});
