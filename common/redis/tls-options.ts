// TLS to Redis: a `rediss://` redis.url turns it on, and the redis.tls.*
// settings (PEM files, like Redis's own tls-ca-cert-file / tls-cert-file /
// tls-key-file) configure it. The same options go to every Redis connection
// of the broker (the ioredis client and the zero-copy append connections) and
// of the archiver.
import fs from 'node:fs';
import net from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { parseRedisEndpoints } from './endpoints.js';

export interface RedisTlsSettings {
  /** PEM file of the CA(s) that signed the server's certificate; empty: Node's default CAs. */
  caLocation: string;
  /** PEM file of the client certificate (for `tls-auth-clients yes`); needs keyLocation. */
  certLocation: string;
  /** PEM file of the client certificate's private key (unencrypted). */
  keyLocation: string;
  /** Name to send as SNI and to check the server's certificate against; empty: the URL's host. */
  servername: string;
  /** Accept any server certificate (no chain or host name check). Testing only. */
  insecureSkipVerify: boolean;
}

/**
 * The redis.tls.* fields of the broker's and the archiver's configuration
 * (BrokerConfig, ArchiverConfig); the archiver reads them from RUNNEL_REDIS_TLS_*.
 */
export interface RedisTlsConfig {
  /** redis.tls.ca.location: PEM file of the CA(s) of the Redis server certificate; empty: Node's CAs. */
  redisTlsCaLocation: string;
  /** redis.tls.cert.location: PEM client certificate, for `tls-auth-clients yes`. */
  redisTlsCertLocation: string;
  /** redis.tls.key.location: PEM private key of the client certificate (unencrypted). */
  redisTlsKeyLocation: string;
  /** redis.tls.servername: SNI and certificate name; empty: the URL's host. */
  redisTlsServername: string;
  /** redis.tls.insecure.skip.verify: accept any server certificate. Testing only. */
  redisTlsInsecureSkipVerify: boolean;
}

/** The redis.tls.* settings of a configuration, as redisTlsOptions takes them. */
export function redisTlsSettings(cfg: RedisTlsConfig): RedisTlsSettings {
  return {
    caLocation: cfg.redisTlsCaLocation,
    certLocation: cfg.redisTlsCertLocation,
    keyLocation: cfg.redisTlsKeyLocation,
    servername: cfg.redisTlsServername,
    insecureSkipVerify: cfg.redisTlsInsecureSkipVerify,
  };
}

const SETTING_NAMES: Record<keyof RedisTlsSettings, string> = {
  caLocation: 'redis.tls.ca.location',
  certLocation: 'redis.tls.cert.location',
  keyLocation: 'redis.tls.key.location',
  servername: 'redis.tls.servername',
  insecureSkipVerify: 'redis.tls.insecure.skip.verify',
};

/** A redis.tls.* setting that cannot work (the broker reports it as RN3001, invalid configuration). */
export class RedisTlsConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedisTlsConfigError';
  }
}

export const isTlsUrl = (url: string): boolean => /^rediss:\/\//i.test(url);

function readPem(field: keyof RedisTlsSettings, file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (e) {
    throw new RedisTlsConfigError(`${SETTING_NAMES[field]}: cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * The TLS options for every Redis connection, or undefined for a plain
 * `redis://` URL. redis.tls.* settings given with a non-TLS URL are refused
 * rather than silently ignored.
 */
export function redisTlsOptions(url: string, s: RedisTlsSettings): ConnectionOptions | undefined {
  const given = (Object.keys(SETTING_NAMES) as Array<keyof RedisTlsSettings>).filter((k) => s[k] !== '' && s[k] !== false);
  if (!isTlsUrl(url)) {
    if (given.length) throw new RedisTlsConfigError(`redis.tls.* settings need a rediss:// redis.url (set: ${given.map((k) => SETTING_NAMES[k]).join(', ')})`);
    return undefined;
  }
  if (Boolean(s.certLocation) !== Boolean(s.keyLocation)) {
    throw new RedisTlsConfigError('redis.tls.cert.location and redis.tls.key.location go together');
  }
  const o: ConnectionOptions = { rejectUnauthorized: !s.insecureSkipVerify };
  if (s.caLocation) o.ca = readPem('caLocation', s.caLocation);
  if (s.certLocation) o.cert = readPem('certLocation', s.certLocation);
  if (s.keyLocation) o.key = readPem('keyLocation', s.keyLocation);
  // SNI: the setting, else the URL's host name (never an IP address, which SNI does not allow).
  let host = '';
  try {
    // A cluster seed list: the first seed names the host (each node is checked against its own address or the servername setting).
    host = parseRedisEndpoints(url).seeds[0]!.host;
  } catch {
    throw new RedisTlsConfigError('redis.url is not a valid rediss:// URL');
  }
  if (s.servername) o.servername = s.servername;
  else if (host && !net.isIP(host)) o.servername = host;
  return o;
}

/** Certificate and handshake failures: retrying cannot help, the configuration must change. */
export function isTlsConfigError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^(ERR_TLS_|ERR_SSL_|UNABLE_TO_|SELF_SIGNED_|DEPTH_ZERO_|CERT_|HOSTNAME_MISMATCH)/.test(code)) return true;
  const msg = e instanceof Error ? e.message : String(e);
  return /certificate|self[- ]signed|SSL routines|wrong version number|alert (bad|unknown|handshake)/i.test(msg);
}
