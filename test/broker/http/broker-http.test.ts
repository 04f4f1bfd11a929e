// The broker's http.* settings: loopback by default, every key reaches the endpoint's settings.
import { describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../../broker/src/config/config.js';
import { brokerHttpSettings } from '../../../broker/src/http/broker-http.js';

const sets = (kv: Record<string, string>) => Object.entries(kv).flatMap(([k, v]) => ['--set', `${k}=${v}`]);

describe('broker http.* settings', () => {
  it('bind 127.0.0.1 by default (not the Kafka listener host) and map every key', () => {
    expect(brokerHttpSettings(loadBrokerConfig(sets({ host: '0.0.0.0', 'http.port': '9101' }), {}))).toEqual({
      host: '127.0.0.1', port: 9101, bearerToken: '', basicUser: '', basicPassword: '', keystoreLocation: '', keyPassword: '', truststoreLocation: '', clientAuth: 'none',
    });
    const c = loadBrokerConfig(sets({
      'http.port': '9101', 'http.host': '0.0.0.0', 'http.auth.bearer.token': 't', 'http.auth.basic.user': 'u', 'http.auth.basic.password': 'p',
      'http.ssl.keystore.location': '/k.pem', 'http.ssl.key.password': 'kp', 'http.ssl.truststore.location': '/ca.pem', 'http.ssl.client.auth': 'requested',
    }), {});
    expect(brokerHttpSettings(c)).toEqual({
      host: '0.0.0.0', port: 9101, bearerToken: 't', basicUser: 'u', basicPassword: 'p', keystoreLocation: '/k.pem', keyPassword: 'kp', truststoreLocation: '/ca.pem', clientAuth: 'requested',
    });
    expect(() => brokerHttpSettings(loadBrokerConfig(sets({ 'http.ssl.client.auth': 'always' }), {}))).toThrow(/http\.ssl\.client\.auth=always/);
  });
});
