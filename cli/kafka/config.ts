// Kafka client properties (--command-config FILE, Java .properties syntax) to
// the CLI client's settings. Read: security.protocol; ssl.truststore.location
// (PEM) or librdkafka's ssl.ca.location; ssl.keystore.location (PEM, key and
// certificate) or ssl.certificate.location + ssl.key.location for client TLS;
// ssl.endpoint.identification.algorithm (empty: no host name check);
// sasl.mechanism (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512) with the username and
// password of sasl.jaas.config (or librdkafka's sasl.username/sasl.password);
// client.id; request.timeout.ms.
import { readFileSync } from 'node:fs';
import { CliUsageError } from './errors.js';

export type SecurityProtocol = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';
export type SaslMechanism = 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512';

export interface SaslSettings {
  mechanism: SaslMechanism;
  username: string;
  password: string;
}

export interface TlsSettings {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  /** false with ssl.endpoint.identification.algorithm= (empty) */
  checkServerIdentity?: () => undefined;
}

export interface ClientConfig {
  bootstrap: Array<{ host: string; port: number }>;
  securityProtocol: SecurityProtocol;
  tls: TlsSettings;
  sasl: SaslSettings | null;
  clientId: string;
  timeoutMs: number;
}

/** Java .properties: `key=value`, `key: value` or `key value`; `#`/`!` comments; a trailing backslash continues the line. */
export function parseProperties(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!.trimStart();
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    while (/(^|[^\\])(\\\\)*\\$/.test(line) && i + 1 < lines.length) line = line.slice(0, -1) + lines[++i]!.trimStart();
    const m = /^((?:\\.|[^=:\s\\])+)\s*[=:\s]\s*(.*)$/.exec(line);
    if (!m) {
      out.set(unescape(line), '');
      continue;
    }
    out.set(unescape(m[1]!), unescape(m[2]!));
  }
  return out;
}

function unescape(s: string): string {
  return s.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_, c: string) => {
    if (c.length === 5) return String.fromCharCode(parseInt(c.slice(1), 16));
    return ({ t: '\t', n: '\n', r: '\r', f: '\f' } as Record<string, string>)[c] ?? c;
  });
}

/** `host:port[,host:port...]`; an IPv6 host in brackets. */
export function parseBootstrap(s: string): Array<{ host: string; port: number }> {
  return s.split(',').map((part) => part.trim()).filter(Boolean).map((hp) => {
    const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(hp);
    if (!m || Number(m[3]) < 1 || Number(m[3]) > 65535) throw new CliUsageError(`--bootstrap-server ${hp}: expected host:port`);
    return { host: m[1] ?? m[2]!, port: Number(m[3]) };
  });
}

/** username="..." and password="..." of a JAAS login module line (PlainLoginModule, ScramLoginModule). */
export function jaasCredentials(jaas: string): { username: string; password: string } | null {
  const get = (k: string): string | undefined => {
    const m = new RegExp(`\\b${k}\\s*=\\s*(?:"((?:\\\\.|[^"\\\\])*)"|([^\\s;]+))`).exec(jaas);
    return m ? (m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]) : undefined;
  };
  const username = get('username');
  const password = get('password');
  return username !== undefined && password !== undefined ? { username, password } : null;
}

const PROTOCOLS: readonly SecurityProtocol[] = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'];
const MECHANISMS: readonly SaslMechanism[] = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'];

/** The client settings from the bootstrap list and the properties; `read` loads PEM files (a test may pass its own). */
export function clientConfig(bootstrap: string, props: ReadonlyMap<string, string>, read: (path: string) => Buffer = (p) => readFileSync(p)): ClientConfig {
  const protocol = (props.get('security.protocol') ?? 'PLAINTEXT').toUpperCase();
  if (!PROTOCOLS.includes(protocol as SecurityProtocol)) throw new CliUsageError(`security.protocol ${protocol}: expected one of ${PROTOCOLS.join(', ')}`);
  const securityProtocol = protocol as SecurityProtocol;
  const tlsSettings: TlsSettings = {};
  const ca = props.get('ssl.truststore.location') ?? props.get('ssl.ca.location');
  if (ca) {
    const type = props.get('ssl.truststore.type');
    if (type && type.toUpperCase() !== 'PEM') throw new CliUsageError(`ssl.truststore.type ${type}: only PEM files are read`);
    tlsSettings.ca = read(ca);
  }
  const keystore = props.get('ssl.keystore.location');
  if (keystore) {
    const pem = read(keystore);
    tlsSettings.cert = pem;
    tlsSettings.key = pem;
  }
  const cert = props.get('ssl.certificate.location');
  const key = props.get('ssl.key.location');
  if (cert) tlsSettings.cert = read(cert);
  if (key) tlsSettings.key = read(key);
  if (props.get('ssl.endpoint.identification.algorithm') === '') tlsSettings.checkServerIdentity = () => undefined;
  let sasl: SaslSettings | null = null;
  if (securityProtocol.startsWith('SASL_')) {
    const mechanism = (props.get('sasl.mechanism') ?? props.get('sasl.mechanisms') ?? 'GSSAPI').toUpperCase();
    if (!MECHANISMS.includes(mechanism as SaslMechanism)) throw new CliUsageError(`sasl.mechanism ${mechanism}: expected one of ${MECHANISMS.join(', ')}`);
    const jaas = props.get('sasl.jaas.config');
    const creds = jaas ? jaasCredentials(jaas) : null;
    const username = creds?.username ?? props.get('sasl.username');
    const password = creds?.password ?? props.get('sasl.password');
    if (username === undefined || password === undefined) throw new CliUsageError('SASL needs username and password in sasl.jaas.config (or sasl.username and sasl.password)');
    sasl = { mechanism: mechanism as SaslMechanism, username, password };
  }
  const timeout = Number(props.get('request.timeout.ms') ?? 30_000);
  if (!(timeout > 0)) throw new CliUsageError(`request.timeout.ms ${props.get('request.timeout.ms')}: expected milliseconds > 0`);
  return {
    bootstrap: parseBootstrap(bootstrap),
    securityProtocol,
    tls: tlsSettings,
    sasl,
    clientId: props.get('client.id') ?? 'runnel-cli',
    timeoutMs: timeout,
  };
}
