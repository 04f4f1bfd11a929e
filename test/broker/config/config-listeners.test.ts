// Kafka's listener and TLS keys: listeners, advertised.listeners,
// listener.security.protocol.map, ssl.* and listener.name.<name>.ssl.*.
import { describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../../broker/src/config/config.js';

const load = (...kv: string[]) => loadBrokerConfig(kv.flatMap((x) => ['--set', x]), {});
const PEM_FILE = 'ssl.keystore.location=/etc/runnel/server.pem';

describe('listeners', () => {
  it('several listeners of every protocol; advertised.listeners per name; the first is host:port', () => {
    const cfg = load(
      'listeners=PLAINTEXT://127.0.0.1:9092,SSL://0.0.0.0:9093,SASL_PLAINTEXT://:9094,SASL_SSL://[::1]:9095',
      'advertised.listeners=SSL://broker-1.example:19093,SASL_SSL://broker-1.example:19095',
      PEM_FILE,
    );
    expect(cfg.listeners.map((l) => [l.name, l.securityProtocol, l.host, l.port, l.advertisedHost, l.advertisedPort])).toEqual([
      ['PLAINTEXT', 'PLAINTEXT', '127.0.0.1', 9092, '127.0.0.1', 9092],
      ['SSL', 'SSL', '0.0.0.0', 9093, 'broker-1.example', 19093],
      ['SASL_PLAINTEXT', 'SASL_PLAINTEXT', '0.0.0.0', 9094, '127.0.0.1', 9094],
      ['SASL_SSL', 'SASL_SSL', '::1', 9095, 'broker-1.example', 19095],
    ]);
    expect(cfg.listeners.map((l) => l.ssl !== null)).toEqual([false, true, false, true]);
    expect(cfg).toMatchObject({ host: '127.0.0.1', port: 9092, advertisedHost: '127.0.0.1', advertisedPort: 9092 });
  });

  it('listener.security.protocol.map names custom listeners; controller listeners are skipped', () => {
    const cfg = load('listeners=INTERNAL://:9092,EXTERNAL://:9093,CONTROLLER://:9094', 'controller.listener.names=CONTROLLER',
      'listener.security.protocol.map=INTERNAL:PLAINTEXT,EXTERNAL:SSL,CONTROLLER:PLAINTEXT', PEM_FILE);
    expect(cfg.listeners.map((l) => `${l.name}:${l.securityProtocol}`)).toEqual(['INTERNAL:PLAINTEXT', 'EXTERNAL:SSL']);
    // host:port of the first listener; a wildcard bind address is advertised as 127.0.0.1
    expect(cfg).toMatchObject({ host: '0.0.0.0', port: 9092, advertisedHost: '127.0.0.1' });
  });

  it('--host/--port and advertised.host/port are shorthands for the first listener; port 0 is kept (bound port advertised at start)', () => {
    const cfg = loadBrokerConfig(['--host', '127.0.0.2', '--port', '0', '--set', 'listeners=PLAINTEXT://:9092,SSL://:9093', '--set', PEM_FILE, '--set', 'advertised.host=a.example'], {});
    expect(cfg.listeners.map((l) => [l.host, l.port, l.advertisedHost])).toEqual([['127.0.0.2', 0, 'a.example'], ['0.0.0.0', 9093, '127.0.0.1']]);
    expect(cfg).toMatchObject({ host: '127.0.0.2', port: 0, advertisedHost: 'a.example' });
    // no `listeners`: one PLAINTEXT listener on host:port
    expect(loadBrokerConfig(['--port', '0'], {}).listeners).toEqual([
      { name: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', host: '127.0.0.1', port: 0, advertisedHost: '127.0.0.1', advertisedPort: 0, ssl: null },
    ]);
  });

  it('refuses bad listener settings with messages naming the key and the fix', () => {
    expect(() => load('listeners=CLIENT://:9093')).toThrow(/listener CLIENT has no security protocol: add CLIENT:PLAINTEXT .* to listener\.security\.protocol\.map/);
    expect(() => load('listeners=A://:1', 'listener.security.protocol.map=A:TLS')).toThrow(/A:TLS is not NAME:PROTOCOL with PROTOCOL one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL/);
    expect(() => load('listeners=PLAINTEXT://:1,PLAINTEXT://:2')).toThrow(/listener name PLAINTEXT appears twice/);
    expect(() => load('listeners=PLAINTEXT://:9092,SASL_PLAINTEXT://:9092')).toThrow(/port 9092 is used by two listeners/);
    expect(() => load('listeners=PLAINTEXT://:9092', 'advertised.listeners=SSL://x:1')).toThrow(/advertised\.listeners: listener SSL is not in listeners \(PLAINTEXT\)/);
    expect(() => load('listeners=CONTROLLER://:9093', 'controller.listener.names=CONTROLLER')).toThrow(/no client listener/);
    expect(() => load('listeners=PLAINTEXT://:70000')).toThrow(/port 70000 is above 65535/);
  });
});

describe('TLS settings (PEM)', () => {
  it("Kafka's keys, defaults: no client auth, TLS 1.2 to 1.3, DEFAULT principal mapping", () => {
    const [, ssl] = load('listeners=PLAINTEXT://:9092,SSL://:9093', 'ssl.keystore.type=PEM', PEM_FILE, 'ssl.truststore.type=PEM', 'ssl.truststore.location=/etc/runnel/ca.pem').listeners;
    expect(ssl!.ssl).toEqual({
      keystoreLocation: '/etc/runnel/server.pem', certificateChain: '', key: '', keyPassword: '', truststoreLocation: '/etc/runnel/ca.pem', truststoreCertificates: '',
      clientAuth: 'none', minVersion: 'TLSv1.2', maxVersion: 'TLSv1.3', cipherSuites: '', principalMappingRules: 'DEFAULT',
    });
  });

  it('listener.name.<lower-case name>.ssl.* overrides ssl.* for that listener only', () => {
    const cfg = load('listeners=INTERNAL://:9092,EXTERNAL://:9093', 'listener.security.protocol.map=INTERNAL:SSL,EXTERNAL:SASL_SSL', PEM_FILE,
      'ssl.client.auth=required', 'ssl.truststore.location=/ca.pem', 'listener.name.external.ssl.client.auth=none',
      'listener.name.external.ssl.keystore.location=/external.pem', 'listener.name.internal.ssl.enabled.protocols=TLSv1.3');
    const [internal, external] = cfg.listeners;
    expect(internal!.ssl).toMatchObject({ keystoreLocation: '/etc/runnel/server.pem', clientAuth: 'required', minVersion: 'TLSv1.3', maxVersion: 'TLSv1.3' });
    expect(external!.ssl).toMatchObject({ keystoreLocation: '/external.pem', clientAuth: 'none', minVersion: 'TLSv1.2' });
  });

  it('inline PEM: ssl.keystore.certificate.chain + ssl.keystore.key, ssl.truststore.certificates', () => {
    const [l] = load('listeners=SSL://:9093', 'ssl.keystore.certificate.chain=CHAIN', 'ssl.keystore.key=KEY', 'ssl.key.password=pw', 'ssl.truststore.certificates=CAS').listeners;
    expect(l!.ssl).toMatchObject({ certificateChain: 'CHAIN', key: 'KEY', keyPassword: 'pw', truststoreCertificates: 'CAS' });
  });

  it('refuses incomplete or unsupported TLS settings with clear messages', () => {
    expect(() => load('listeners=SSL://:9093')).toThrow(/listener SSL uses TLS but has no server certificate: set ssl\.keystore\.location/);
    expect(() => load('listeners=SSL://:9093', PEM_FILE, 'ssl.keystore.type=JKS')).toThrow(/ssl\.keystore\.type=JKS: Runnel reads PEM only/);
    expect(() => load('listeners=SSL://:9093', PEM_FILE, 'listener.name.ssl.ssl.truststore.type=PKCS12')).toThrow(/listener\.name\.ssl\.ssl\.truststore\.type=PKCS12: Runnel reads PEM only/);
    expect(() => load('listeners=SSL://:9093', PEM_FILE, 'ssl.client.auth=required')).toThrow(/ssl\.client\.auth=required needs the CAs that sign client certificates/);
    expect(() => load('listeners=SSL://:9093', PEM_FILE, 'ssl.client.auth=maybe')).toThrow(/ssl\.client\.auth=maybe: expected none, requested or required/);
    expect(() => load('listeners=SSL://:9093', PEM_FILE, 'ssl.enabled.protocols=TLSv1.1,TLSv1.2')).toThrow(/TLSv1\.2 and TLSv1\.3 only \(not TLSv1\.1\)/);
    expect(() => load('listeners=SSL://:9093', PEM_FILE, 'ssl.keystore.key=KEY')).toThrow(/either ssl\.keystore\.location or ssl\.keystore\.certificate\.chain/);
    expect(() => load('listeners=SSL://:9093', PEM_FILE, 'ssl.principal.mapping.rules=RULE:^CN=(.*)$/$1')).toThrow(/is not RULE:pattern\/replacement\/\[LU\] or DEFAULT/);
  });

  it('a plain listener ignores ssl.*; ssl.* keys Runnel does not read and the inter-broker keys are listed as ignored', () => {
    const cfg = load('listeners=PLAINTEXT://:9092', 'ssl.keystore.type=PEM', 'ssl.endpoint.identification.algorithm=https', 'security.inter.broker.protocol=SSL', 'inter.broker.listener.name=PLAINTEXT');
    expect(cfg.listeners[0]!.ssl).toBeNull();
    expect(cfg.ignoredKeys).toEqual(['inter.broker.listener.name', 'security.inter.broker.protocol', 'ssl.endpoint.identification.algorithm']);
  });
});
