// Kafka's listener settings: `listeners`, `advertised.listeners`,
// `listener.security.protocol.map`, `controller.listener.names`, and the TLS
// keys `ssl.*` with Kafka's per-listener override
// `listener.name.<lower-case listener name>.ssl.*`.
//
// `--host`/`--port` (`host`/`port`) set the first listener's bind address and
// `advertised.host`/`advertised.port` its advertised one; without `listeners`
// the broker has one PLAINTEXT listener on host:port.
import { RunnelError } from '../../../common/errors.js';
import type { SecurityProtocol } from '../security/session.js';
import { parseMappingRules } from '../security/principal-mapping.js';
import type { ClientAuth, SslSettings } from '../security/tls-settings.js';

const PROTOCOLS: readonly SecurityProtocol[] = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'];
const DEFAULT_PROTOCOL_MAP = 'PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL';

/** TLS keys read by Runnel (Kafka's names), plain or under `listener.name.<name>.`. Other `ssl.*` keys are ignored. */
export const SSL_KEYS: readonly string[] = [
  'ssl.keystore.type', 'ssl.keystore.location', 'ssl.keystore.certificate.chain', 'ssl.keystore.key', 'ssl.key.password',
  'ssl.truststore.type', 'ssl.truststore.location', 'ssl.truststore.certificates', 'ssl.client.auth', 'ssl.enabled.protocols',
  'ssl.cipher.suites', 'ssl.principal.mapping.rules',
];
const SSL_KEY_SET = new Set(SSL_KEYS);

/** A TLS key Runnel reads: `ssl.<key>` or `listener.name.<listener>.ssl.<key>`. */
export function isSslKey(key: string): boolean {
  const m = /^listener\.name\.[^.]+\.(ssl\..+)$/.exec(key);
  return SSL_KEY_SET.has(m ? m[1]! : key);
}

export interface ListenerConfig {
  /** Upper-case listener name, e.g. PLAINTEXT, SSL, CLIENT. */
  name: string;
  securityProtocol: SecurityProtocol;
  host: string;
  /** 0: an ephemeral port; the bound port is what gets advertised. */
  port: number;
  advertisedHost: string;
  /** 0: the bound port. */
  advertisedPort: number;
  /** Present for SSL and SASL_SSL listeners. */
  ssl: SslSettings | null;
}

interface Address { name: string; host: string; port: number }

function parseAddresses(key: string, raw: string): Address[] {
  const out: Address[] = [];
  for (const item of raw.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([A-Za-z0-9_]+):\/\/(\[[^\]]*\]|[^:/]*):(\d+)$/.exec(item);
    if (!m) throw new RunnelError('CONFIG_INVALID', `${key}: ${item} is not NAME://host:port`);
    const port = Number(m[3]);
    if (port > 65535) throw new RunnelError('CONFIG_INVALID', `${key}: ${item}: port ${port} is above 65535`);
    const name = m[1]!.toUpperCase();
    if (out.some((a) => a.name === name)) throw new RunnelError('CONFIG_INVALID', `${key}: listener name ${name} appears twice (each listener needs its own name)`);
    out.push({ name, host: m[2]!.replace(/^\[|\]$/g, ''), port });
  }
  return out;
}

function protocolMap(raw: string): Map<string, SecurityProtocol> {
  const map = new Map<string, SecurityProtocol>();
  for (const pair of raw.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [name, proto] = pair.split(':').map((s) => s.trim().toUpperCase());
    if (!name || !proto || !PROTOCOLS.includes(proto as SecurityProtocol)) {
      throw new RunnelError('CONFIG_INVALID', `listener.security.protocol.map: ${pair} is not NAME:PROTOCOL with PROTOCOL one of ${PROTOCOLS.join(', ')}`);
    }
    map.set(name, proto as SecurityProtocol);
  }
  return map;
}

const wildcard = (host: string): boolean => host === '' || host === '0.0.0.0' || host === '::';

/** Kafka's ssl.enabled.protocols (e.g. "TLSv1.2,TLSv1.3") as Node's min/max versions; older protocols are refused. */
function tlsVersions(key: string, raw: string | undefined): Pick<SslSettings, 'minVersion' | 'maxVersion'> {
  if (raw === undefined || raw.trim() === '') return { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.3' };
  const asked = raw.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = asked.filter((p) => p !== 'TLSv1.2' && p !== 'TLSv1.3');
  if (bad.length) throw new RunnelError('CONFIG_INVALID', `${key}=${raw}: Runnel serves TLSv1.2 and TLSv1.3 only (not ${bad.join(', ')})`);
  return { minVersion: asked.includes('TLSv1.2') ? 'TLSv1.2' : 'TLSv1.3', maxVersion: asked.includes('TLSv1.3') ? 'TLSv1.3' : 'TLSv1.2' };
}

/** A listener's TLS settings: `listener.name.<name>.ssl.x` wins over `ssl.x`. */
export function sslSettingsFor(listener: string, explicit: Record<string, string>): SslSettings {
  const prefix = `listener.name.${listener.toLowerCase()}.`;
  const where = (k: string): string => (explicit[prefix + k] !== undefined ? prefix + k : k);
  const get = (k: string): string | undefined => explicit[prefix + k] ?? explicit[k];
  for (const k of ['ssl.keystore.type', 'ssl.truststore.type']) {
    const v = get(k);
    if (v !== undefined && v.toUpperCase() !== 'PEM') {
      throw new RunnelError('CONFIG_INVALID', `${where(k)}=${v}: Runnel reads PEM only (set ${k}=PEM; convert a JKS/PKCS12 store with keytool/openssl)`);
    }
  }
  const clientAuth = (get('ssl.client.auth') ?? 'none').toLowerCase();
  if (clientAuth !== 'none' && clientAuth !== 'requested' && clientAuth !== 'required') {
    throw new RunnelError('CONFIG_INVALID', `${where('ssl.client.auth')}=${clientAuth}: expected none, requested or required`);
  }
  const s: SslSettings = {
    keystoreLocation: get('ssl.keystore.location') ?? '',
    certificateChain: get('ssl.keystore.certificate.chain') ?? '',
    key: get('ssl.keystore.key') ?? '',
    keyPassword: get('ssl.key.password') ?? '',
    truststoreLocation: get('ssl.truststore.location') ?? '',
    truststoreCertificates: get('ssl.truststore.certificates') ?? '',
    clientAuth,
    ...tlsVersions(where('ssl.enabled.protocols'), get('ssl.enabled.protocols')),
    cipherSuites: get('ssl.cipher.suites') ?? '',
    principalMappingRules: get('ssl.principal.mapping.rules') ?? 'DEFAULT',
  };
  parseMappingRules(s.principalMappingRules);
  if (!s.keystoreLocation && !(s.certificateChain && s.key)) {
    throw new RunnelError('CONFIG_INVALID', `listener ${listener} uses TLS but has no server certificate: set ssl.keystore.location (a PEM file with the key and the certificate chain) or ssl.keystore.certificate.chain and ssl.keystore.key (or the same keys under ${prefix})`);
  }
  if (s.keystoreLocation && (s.certificateChain || s.key)) {
    throw new RunnelError('CONFIG_INVALID', `listener ${listener}: set either ${where('ssl.keystore.location')} or ssl.keystore.certificate.chain + ssl.keystore.key, not both`);
  }
  if (s.truststoreLocation && s.truststoreCertificates) {
    throw new RunnelError('CONFIG_INVALID', `listener ${listener}: set either ssl.truststore.location or ssl.truststore.certificates, not both`);
  }
  if (clientAuth !== 'none' && !s.truststoreLocation && !s.truststoreCertificates) {
    throw new RunnelError('CONFIG_INVALID', `listener ${listener}: ssl.client.auth=${clientAuth} needs the CAs that sign client certificates (ssl.truststore.location or ssl.truststore.certificates)`);
  }
  return s;
}

/**
 * The broker's client listeners from the explicit keys (what a file, the
 * environment or flags set) and Runnel's host/port/advertised.* values
 * (defaults included). Controller listeners are skipped.
 */
export function resolveListeners(explicit: Record<string, string>, values: Record<string, string>): ListenerConfig[] {
  const protocols = protocolMap(explicit['listener.security.protocol.map'] ?? DEFAULT_PROTOCOL_MAP);
  const controllers = new Set((explicit['controller.listener.names'] ?? '').split(',').map((s) => s.trim().toUpperCase()).filter(Boolean));
  const addresses = (key: string): Address[] => parseAddresses(key, explicit[key] ?? '').filter((l) => !controllers.has(l.name));
  const int = (key: string): number => {
    const n = Number(values[key]);
    if (!Number.isInteger(n) || n < 0 || n > 65535) throw new RunnelError('CONFIG_INVALID', `${key}=${values[key]} is not a port number`);
    return n;
  };
  let bound: Address[];
  if (explicit.listeners === undefined) {
    bound = [{ name: 'PLAINTEXT', host: values.host ?? '127.0.0.1', port: int('port') }];
  } else {
    bound = addresses('listeners');
    if (bound.length === 0) throw new RunnelError('CONFIG_INVALID', `listeners=${explicit.listeners}: no client listener (controller listeners named in controller.listener.names are skipped)`);
    // --host/--port are shorthands for the first listener.
    if (explicit.host !== undefined) bound[0]!.host = explicit.host;
    if (explicit.port !== undefined) bound[0]!.port = int('port');
  }
  for (const l of bound) l.host ||= '0.0.0.0'; // Kafka: an empty host binds every interface
  const ports = bound.map((l) => l.port).filter((p) => p !== 0);
  const dup = ports.find((p, i) => ports.indexOf(p) !== i);
  if (dup !== undefined) throw new RunnelError('CONFIG_INVALID', `listeners: port ${dup} is used by two listeners`);
  const advertised = explicit['advertised.listeners'] !== undefined ? addresses('advertised.listeners') : [];
  for (const a of advertised) {
    if (!bound.some((l) => l.name === a.name)) throw new RunnelError('CONFIG_INVALID', `advertised.listeners: listener ${a.name} is not in listeners (${bound.map((l) => l.name).join(', ')})`);
  }
  return bound.map((l, i): ListenerConfig => {
    const protocol = protocols.get(l.name) ?? (PROTOCOLS.includes(l.name as SecurityProtocol) ? (l.name as SecurityProtocol) : undefined);
    if (!protocol) throw new RunnelError('CONFIG_INVALID', `listener ${l.name} has no security protocol: add ${l.name}:PLAINTEXT (or SSL, SASL_PLAINTEXT, SASL_SSL) to listener.security.protocol.map`);
    const adv = advertised.find((a) => a.name === l.name);
    let advertisedHost = adv?.host || (wildcard(l.host) ? '127.0.0.1' : l.host);
    let advertisedPort = adv ? adv.port : l.port;
    if (i === 0) {
      if (explicit['advertised.host'] !== undefined && values['advertised.host']) advertisedHost = values['advertised.host'];
      if (explicit['advertised.port'] !== undefined) advertisedPort = int('advertised.port');
    }
    const tls = protocol === 'SSL' || protocol === 'SASL_SSL';
    return { name: l.name, securityProtocol: protocol, host: l.host, port: l.port, advertisedHost, advertisedPort, ssl: tls ? sslSettingsFor(l.name, explicit) : null };
  });
}
