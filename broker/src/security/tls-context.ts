// A TLS listener's server options from its PEM settings (Kafka's ssl.*
// names), and their reload: the key, certificate and trust files are read
// again every ssl.reload.interval.ms; when their contents changed and still
// make a valid context, new connections get it. A broken file keeps the
// previous certificates and is logged.
import { readFileSync } from 'node:fs';
import { createSecureContext, type TlsOptions } from 'node:tls';
import type { SslSettings } from '../security/tls-settings.js';
import { RunnelError } from '../../../common/errors.js';
import type { Logger } from '../../../common/logger/logger.js';

/** What a TLS listener applies to each new connection. */
export type ServerTlsOptions = Pick<TlsOptions, 'key' | 'cert' | 'passphrase' | 'ca' | 'minVersion' | 'maxVersion' | 'ciphers'>;

const PRIVATE_KEY = /-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----[\s\S]*?-----END (?:[A-Z]+ )?PRIVATE KEY-----/g;
const CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

function read(what: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new RunnelError('CONFIG_INVALID', `${what} ${file} cannot be read: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * Reads the PEM material and checks that Node accepts it (key matches the
 * certificate, password right). Throws RN3001 saying which setting is wrong.
 */
export function serverTlsOptions(s: SslSettings): ServerTlsOptions {
  // Kafka's PEM keystore: one file with the private key and the certificate chain (in any order).
  const keystore = s.keystoreLocation ? read('ssl.keystore.location', s.keystoreLocation) : `${s.key}\n${s.certificateChain}`;
  const keys = keystore.match(PRIVATE_KEY) ?? [];
  const chain = keystore.match(CERTIFICATE) ?? [];
  const from = s.keystoreLocation ? `ssl.keystore.location ${s.keystoreLocation}` : 'ssl.keystore.key / ssl.keystore.certificate.chain';
  if (keys.length !== 1) throw new RunnelError('CONFIG_INVALID', `${from}: expected one PEM private key, found ${keys.length}`);
  if (chain.length === 0) throw new RunnelError('CONFIG_INVALID', `${from}: no PEM certificate`);
  const trust = s.truststoreLocation ? read('ssl.truststore.location', s.truststoreLocation) : s.truststoreCertificates;
  const cas = trust ? trust.match(CERTIFICATE) ?? [] : [];
  if (trust && cas.length === 0) throw new RunnelError('CONFIG_INVALID', `${s.truststoreLocation ? `ssl.truststore.location ${s.truststoreLocation}` : 'ssl.truststore.certificates'}: no PEM certificate`);
  const opts: ServerTlsOptions = {
    key: keys[0],
    cert: chain.join('\n'),
    ...(s.keyPassword ? { passphrase: s.keyPassword } : {}),
    ...(cas.length ? { ca: cas } : {}),
    minVersion: s.minVersion,
    maxVersion: s.maxVersion,
    ...(s.cipherSuites ? { ciphers: s.cipherSuites.split(',').map((c) => c.trim()).join(':') } : {}),
  };
  try {
    createSecureContext(opts);
  } catch (e) {
    throw new RunnelError('CONFIG_INVALID', `${from}: not a usable key and certificate${s.keyPassword ? ' (or wrong ssl.key.password)' : ''}: ${e instanceof Error ? e.message : String(e)}`);
  }
  return opts;
}

/** The files a listener's TLS settings read (inline PEM has none). */
function watchedFiles(s: SslSettings): string[] {
  return [s.keystoreLocation, s.truststoreLocation].filter(Boolean);
}

/**
 * Re-reads a listener's PEM files every `intervalMs` and calls `apply` with
 * new options when their contents changed. Holds no timer when nothing is a file.
 */
export class TlsReloader {
  private timer: NodeJS.Timeout | null = null;
  private seen: string;
  private failed = '';

  constructor(
    private readonly listener: string,
    private readonly settings: SslSettings,
    private readonly apply: (o: ServerTlsOptions) => void,
    private readonly logger: Logger,
  ) {
    this.seen = this.snapshot();
  }

  private snapshot(): string {
    return watchedFiles(this.settings).map((f) => {
      try {
        return readFileSync(f, 'utf8');
      } catch (e) {
        return `unreadable: ${e instanceof Error ? e.message : String(e)}`;
      }
    }).join('\0');
  }

  start(intervalMs: number): void {
    if (watchedFiles(this.settings).length === 0 || intervalMs <= 0) return;
    this.timer = setInterval(() => this.check(), intervalMs);
    this.timer.unref();
  }

  /** One poll: applies changed files, or logs (once per distinct change) why they are refused. */
  check(): void {
    const now = this.snapshot();
    if (now === this.seen) return;
    try {
      const opts = serverTlsOptions(this.settings);
      this.apply(opts);
      this.seen = now;
      this.failed = '';
      this.logger.info('TLS certificates reloaded', { listener: this.listener, files: watchedFiles(this.settings).join(',') });
    } catch (e) {
      if (this.failed === now) return;
      this.failed = now;
      this.logger.warn('TLS certificate files changed but cannot be used; keeping the previous ones', {
        listener: this.listener, reason: e instanceof Error ? e.message : String(e),
      });
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
