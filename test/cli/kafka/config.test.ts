// Kafka client properties (--command-config) to the CLI client's settings.
import { describe, expect, it } from 'vitest';
import { clientConfig, jaasCredentials, parseBootstrap, parseProperties } from '../../../cli/kafka/config.js';
import { CliUsageError } from '../../../cli/kafka/errors.js';

describe('parseProperties', () => {
  it('reads key=value, key: value and key value, comments and continued lines', () => {
    const p = parseProperties('# comment\n! also\nsecurity.protocol=SASL_SSL\nsasl.mechanism: SCRAM-SHA-512\nclient.id  cli\nsasl.jaas.config=a \\\n   b;\nkey\\=x=1\n\n');
    expect([...p]).toEqual([['security.protocol', 'SASL_SSL'], ['sasl.mechanism', 'SCRAM-SHA-512'], ['client.id', 'cli'], ['sasl.jaas.config', 'a b;'], ['key=x', '1']]);
  });
});

describe('jaasCredentials', () => {
  it('takes quoted and bare username and password, with escaped quotes', () => {
    expect(jaasCredentials('org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="p\\"w;d";'))
      .toEqual({ username: 'alice', password: 'p"w;d' });
    expect(jaasCredentials('PlainLoginModule required username=bob password=secret;')).toEqual({ username: 'bob', password: 'secret' });
    expect(jaasCredentials('PlainLoginModule required username="x";')).toBeNull();
  });
});

describe('clientConfig', () => {
  const read = (p: string): Buffer => Buffer.from(`pem of ${p}`);

  it('is PLAINTEXT without properties', () => {
    const c = clientConfig('127.0.0.1:9092,[::1]:9093', new Map(), read);
    expect(c.bootstrap).toEqual([{ host: '127.0.0.1', port: 9092 }, { host: '::1', port: 9093 }]);
    expect(c.securityProtocol).toBe('PLAINTEXT');
    expect(c.sasl).toBeNull();
  });

  it('reads SASL_SSL with a PEM trust store, SCRAM from the JAAS line and no host name check', () => {
    const c = clientConfig('h:1', new Map([
      ['security.protocol', 'sasl_ssl'], ['ssl.truststore.location', '/ca.pem'], ['ssl.truststore.type', 'PEM'], ['ssl.endpoint.identification.algorithm', ''],
      ['sasl.mechanism', 'SCRAM-SHA-256'], ['sasl.jaas.config', 'x required username="u" password="p";'],
    ]), read);
    expect(c.securityProtocol).toBe('SASL_SSL');
    expect(c.tls.ca?.toString()).toBe('pem of /ca.pem');
    expect(c.tls.checkServerIdentity?.()).toBeUndefined();
    expect(c.sasl).toEqual({ mechanism: 'SCRAM-SHA-256', username: 'u', password: 'p' });
  });

  it('takes librdkafka names too (ssl.ca.location, sasl.username/password)', () => {
    const c = clientConfig('h:1', new Map([['security.protocol', 'SASL_PLAINTEXT'], ['sasl.mechanisms', 'PLAIN'], ['sasl.username', 'a'], ['sasl.password', 'b'], ['ssl.ca.location', '/x']]), read);
    expect(c.sasl).toEqual({ mechanism: 'PLAIN', username: 'a', password: 'b' });
    expect(c.tls.ca?.toString()).toBe('pem of /x');
  });

  it('refuses what it cannot do, as usage errors', () => {
    expect(() => clientConfig('h:1', new Map([['security.protocol', 'SASL_SSL']]), read)).toThrow(/sasl.mechanism GSSAPI/);
    expect(() => clientConfig('h:1', new Map([['ssl.truststore.location', '/t.jks'], ['ssl.truststore.type', 'JKS']]), read)).toThrow(/only PEM/);
    expect(() => clientConfig('h:1', new Map([['security.protocol', 'SASL_PLAINTEXT'], ['sasl.mechanism', 'PLAIN']]), read)).toThrow(CliUsageError);
    expect(() => parseBootstrap('nohost')).toThrow(/expected host:port/);
    expect(() => parseBootstrap('h:70000')).toThrow(CliUsageError);
  });
});
