// Settings of the HTTP endpoint (/health, /ready, /metrics), the same for the
// broker (http.* keys) and the archiver (RUNNEL_ARCHIVER_HTTP_* variables).
// TLS takes PEM files, with the names of Kafka's ssl.* settings
// (ssl.keystore.location with ssl.keystore.type=PEM: key and certificate chain
// in one file; ssl.truststore.location: CA certificates; ssl.client.auth).
import fs from 'node:fs';
import { createSecureContext, type SecureContextOptions, type TlsOptions } from 'node:tls';

export type ClientAuth = 'none' | 'requested' | 'required';

export interface HttpSettings {
  /** Address to bind (loopback by default: the endpoint is for a local agent unless configured otherwise). */
  host: string;
  /** 0 lets the OS choose (tests); callers leave the endpoint off when their port setting is 0. */
  port: number;
  /** Bearer token required on every path but /health; empty: none. */
  bearerToken: string;
  /** Basic authentication (user and password both required); empty user: none. */
  basicUser: string;
  basicPassword: string;
  /** PEM file holding the private key and the certificate chain; empty: plain HTTP. */
  keystoreLocation: string;
  /** Passphrase of an encrypted private key. */
  keyPassword: string;
  /** PEM file of the CA certificates client certificates are checked against. */
  truststoreLocation: string;
  /** Client certificates: none, requested (checked when sent) or required. */
  clientAuth: ClientAuth;
}

/** The settings as read from configuration, before the port is chosen and client auth parsed. */
export type HttpSettingsInput = Omit<HttpSettings, 'port' | 'clientAuth'> & { clientAuth: string };

/** The setting names of the broker, used in the messages of HttpConfigError. */
export const BROKER_HTTP_KEYS: Record<keyof HttpSettings, string> = {
  host: 'http.host',
  port: 'http.port',
  bearerToken: 'http.auth.bearer.token',
  basicUser: 'http.auth.basic.user',
  basicPassword: 'http.auth.basic.password',
  keystoreLocation: 'http.ssl.keystore.location',
  keyPassword: 'http.ssl.key.password',
  truststoreLocation: 'http.ssl.truststore.location',
  clientAuth: 'http.ssl.client.auth',
};

/** A setting of the HTTP endpoint that cannot work (reported as RN3001, invalid configuration). */
export class HttpConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HttpConfigError';
  }
}

export function parseClientAuth(v: string, name: string): ClientAuth {
  const s = (v || 'none').toLowerCase();
  if (s === 'none' || s === 'requested' || s === 'required') return s;
  throw new HttpConfigError(`${name}=${v} (expected none, requested or required)`);
}

function readPem(file: string, name: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (e) {
    throw new HttpConfigError(`${name}=${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
}

/**
 * Node's https options for the settings, or null for plain HTTP. Settings
 * that need one another are checked here, so a half-configured endpoint
 * refuses to start instead of serving without the protection asked for.
 */
export function httpsOptions(s: HttpSettings, names: Record<keyof HttpSettings, string> = BROKER_HTTP_KEYS): (TlsOptions & SecureContextOptions) | null {
  if (s.basicUser && !s.basicPassword) throw new HttpConfigError(`${names.basicUser} is set but ${names.basicPassword} is empty`);
  if (!s.basicUser && s.basicPassword) throw new HttpConfigError(`${names.basicPassword} is set but ${names.basicUser} is empty`);
  if (!s.keystoreLocation) {
    for (const k of ['keyPassword', 'truststoreLocation'] as const) if (s[k]) throw new HttpConfigError(`${names[k]} is set but ${names.keystoreLocation} is empty`);
    if (s.clientAuth !== 'none') throw new HttpConfigError(`${names.clientAuth}=${s.clientAuth} needs ${names.keystoreLocation}`);
    return null;
  }
  if (s.clientAuth !== 'none' && !s.truststoreLocation) throw new HttpConfigError(`${names.clientAuth}=${s.clientAuth} needs ${names.truststoreLocation}`);
  const pem = readPem(s.keystoreLocation, names.keystoreLocation);
  const text = pem.toString('utf8');
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) throw new HttpConfigError(`${names.keystoreLocation}=${s.keystoreLocation}: no PEM private key in it`);
  if (!/-----BEGIN CERTIFICATE-----/.test(text)) throw new HttpConfigError(`${names.keystoreLocation}=${s.keystoreLocation}: no PEM certificate in it`);
  const opts: TlsOptions & SecureContextOptions = { key: pem, cert: pem, minVersion: 'TLSv1.2' };
  if (s.keyPassword) opts.passphrase = s.keyPassword;
  if (s.truststoreLocation) opts.ca = readPem(s.truststoreLocation, names.truststoreLocation);
  if (s.clientAuth !== 'none') {
    opts.requestCert = true;
    opts.rejectUnauthorized = s.clientAuth === 'required';
  }
  try {
    createSecureContext(opts); // a wrong passphrase or a key that does not match the certificate fails here, not at the first client
  } catch (e) {
    throw new HttpConfigError(`${names.keystoreLocation}=${s.keystoreLocation}: ${(e as Error).message}${s.keyPassword ? '' : ` (an encrypted key needs ${names.keyPassword})`}`);
  }
  return opts;
}
