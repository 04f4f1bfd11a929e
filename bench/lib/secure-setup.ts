// TLS and SASL_SSL for workload k (secure): one throwaway PKI per bench run
// (test/helpers/redis-tls.ts makeTestPki, openssl, P-256), the listener
// settings that give Kafka and Runnel the same SSL and SASL_SSL listeners, the
// SCRAM-SHA-512 user (created through each broker with kafka-configs, i.e.
// AlterUserScramCredentials), and one Java client properties file per
// security protocol that every tool of the workload reads, on both systems.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { kafkaConfigs } from '../../test/helpers/java.js';
import { freePort, HOST } from '../../test/helpers/procs.js';
import { makeTestPki, type TestPki } from '../../test/helpers/redis-tls.js';

export type SecureProtocol = 'PLAINTEXT' | 'SSL' | 'SASL_SSL';
export const SECURE_PROTOCOLS: SecureProtocol[] = ['PLAINTEXT', 'SSL', 'SASL_SSL'];
export const SCRAM_MECHANISM = 'SCRAM-SHA-512';
export const BENCH_USER = 'bench';
/** Kafka requires a JAAS entry for each SCRAM mechanism of a SASL listener; Runnel accepts and needs nothing in it. */
const SCRAM_SERVER_JAAS = 'org.apache.kafka.common.security.scram.ScramLoginModule required;';

export interface SecureMaterial {
  pki: TestPki;
  /** The server's key and certificate in one PEM file (ssl.keystore.type=PEM). */
  keystore: string;
  /** The SCRAM user's password (random per bench run). */
  password: string;
  /** Java client properties per protocol (no bootstrap.servers: the tools are given it). */
  clientProps: Record<SecureProtocol, string>;
  cleanup(): void;
}

/** The bootstrap address of each listener of a system with secure listeners; `error` when its set-up failed. */
export interface SecureListeners {
  bootstrap: Record<SecureProtocol, string>;
  error?: string;
}

export async function makeSecureMaterial(): Promise<SecureMaterial> {
  const pki = await makeTestPki();
  const keystore = path.join(pki.dir, 'keystore.pem');
  fs.writeFileSync(keystore, fs.readFileSync(pki.serverKey, 'utf8') + fs.readFileSync(pki.serverCert, 'utf8'));
  const password = crypto.randomBytes(12).toString('hex');
  const tls = ['ssl.truststore.type=PEM', `ssl.truststore.location=${pki.caCert}`];
  const lines: Record<SecureProtocol, string[]> = {
    PLAINTEXT: ['security.protocol=PLAINTEXT'],
    SSL: ['security.protocol=SSL', ...tls],
    SASL_SSL: [
      'security.protocol=SASL_SSL',
      ...tls,
      `sasl.mechanism=${SCRAM_MECHANISM}`,
      `sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="${BENCH_USER}" password="${password}";`,
    ],
  };
  const clientProps = {} as Record<SecureProtocol, string>;
  for (const p of SECURE_PROTOCOLS) {
    clientProps[p] = path.join(pki.dir, `client-${p.toLowerCase()}.properties`);
    fs.writeFileSync(clientProps[p], `${lines[p].join('\n')}\n`);
  }
  return { pki, keystore, password, clientProps, cleanup: () => fs.rmSync(pki.dir, { recursive: true, force: true }) };
}

/** Two free ports for the SSL and SASL_SSL listeners. */
export async function securePorts(): Promise<{ SSL: number; SASL_SSL: number }> {
  return { SSL: await freePort(), SASL_SSL: await freePort() };
}

/**
 * The server settings both brokers get, under Kafka's names: PEM keystore for
 * every TLS listener, SCRAM-SHA-512 the one SASL mechanism. The listeners are
 * named after their protocol (SSL, SASL_SSL), so Kafka's default protocol map
 * applies on both.
 */
export function secureServerSettings(m: SecureMaterial): Record<string, string> {
  return {
    'ssl.keystore.type': 'PEM',
    'ssl.keystore.location': m.keystore,
    'sasl.enabled.mechanisms': SCRAM_MECHANISM,
    [`listener.name.sasl_ssl.${SCRAM_MECHANISM.toLowerCase()}.sasl.jaas.config`]: SCRAM_SERVER_JAAS,
  };
}

export const secureBootstraps = (plain: string, ports: { SSL: number; SASL_SSL: number }): Record<SecureProtocol, string> => ({
  PLAINTEXT: plain,
  SSL: `${HOST}:${ports.SSL}`,
  SASL_SSL: `${HOST}:${ports.SASL_SSL}`,
});

/**
 * Creates the SCRAM user through the broker's PLAINTEXT listener (no
 * authorizer on either system), then checks that it authenticates on the
 * SASL_SSL listener (TLS and SCRAM both work). Kafka applies the credential
 * once its metadata log has it, hence the retries. Returns an error text, or
 * undefined when the SASL_SSL listener works.
 */
export async function prepareSecureListeners(m: SecureMaterial, l: Record<SecureProtocol, string>): Promise<string | undefined> {
  const add = await kafkaConfigs(l.PLAINTEXT, [
    '--alter', '--add-config', `${SCRAM_MECHANISM}=[password=${m.password}]`, '--entity-type', 'users', '--entity-name', BENCH_USER,
  ], { timeoutMs: 60_000 });
  if (add.code !== 0) return `kafka-configs --alter (SCRAM user) failed (code ${add.code}): ${(add.stderr || add.stdout).trim().split('\n').slice(-3).join(' | ')}`;
  let last = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const d = await kafkaConfigs(l.SASL_SSL, ['--command-config', m.clientProps.SASL_SSL, '--describe', '--entity-type', 'users', '--entity-name', BENCH_USER], {
      timeoutMs: 60_000,
    });
    if (d.code === 0 && d.stdout.includes(SCRAM_MECHANISM)) return undefined;
    last = `kafka-configs --describe over SASL_SSL failed (code ${d.code}): ${(d.stderr || d.stdout).trim().split('\n').slice(-3).join(' | ')}`;
    await new Promise((r) => setTimeout(r, 1000));
  }
  return last;
}
