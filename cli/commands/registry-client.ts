// A small client of Confluent's Schema Registry REST API for `runnel schema`:
// JSON over http or https (a PEM CA for a private one), basic credentials, and
// Confluent's error body turned into one line naming its error_code.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';

const CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';
const TIMEOUT_MS = 30_000;

/** A registry's refusal: the HTTP status, Confluent's error_code and message. */
export class RegistryResponseError extends Error {
  constructor(readonly status: number, readonly errorCode: number | null, message: string) {
    super(errorCode === null ? `HTTP ${status}: ${message}` : `${message} (error_code ${errorCode}, HTTP ${status})`);
  }
}

export interface RegistryClientOptions {
  url: string;
  basicAuth?: string;
  ca?: Buffer;
}

export class RegistryClient {
  private readonly base: URL;

  constructor(private readonly o: RegistryClientOptions) {
    try {
      this.base = new URL(o.url);
    } catch {
      throw new Error(`registry URL ${o.url}: not a URL`);
    }
    if (this.base.protocol !== 'http:' && this.base.protocol !== 'https:') throw new Error(`registry URL ${o.url}: expected http:// or https://`);
  }

  get<T>(path: string): Promise<T> {
    return this.send<T>('GET', path);
  }

  send<T>(method: string, path: string, body?: unknown): Promise<T> {
    const url = new URL(this.base.pathname.replace(/\/$/, '') + path, this.base);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = { accept: CONTENT_TYPE };
    if (payload) Object.assign(headers, { 'content-type': CONTENT_TYPE, 'content-length': String(payload.length) });
    if (this.o.basicAuth) headers.authorization = `Basic ${Buffer.from(this.o.basicAuth).toString('base64')}`;
    const lib = url.protocol === 'https:' ? https : http;
    return new Promise<T>((resolve, reject) => {
      const req = lib.request(url, { method, headers, timeout: TIMEOUT_MS, ...(this.o.ca ? { ca: this.o.ca } : {}) }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = text === '' ? null : JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300 && parsed !== undefined) return resolve(parsed as T);
          const err = parsed as { error_code?: unknown; message?: unknown } | undefined;
          const code = typeof err?.error_code === 'number' ? err.error_code : null;
          const message = typeof err?.message === 'string' ? err.message : text.slice(0, 200) || (res.statusMessage ?? 'no body');
          reject(new RegistryResponseError(status, code, message));
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`registry ${this.base.origin}: no answer within ${TIMEOUT_MS / 1000} s`)));
      req.on('error', (e: NodeJS.ErrnoException) => reject(e.code === 'ECONNREFUSED' ? new Error(`registry ${this.base.origin}: connection refused (is schema.registry.listeners set?)`) : e));
      req.end(payload);
    });
  }
}

/** The client from the command's flags and the environment. */
export function registryClientFrom(v: Record<string, string | boolean | undefined>, env: NodeJS.ProcessEnv, defaultUrl: string): RegistryClient {
  const str = (k: string): string | undefined => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
  const ca = str('ca');
  return new RegistryClient({
    url: str('registry-url') ?? env.RUNNEL_SCHEMA_REGISTRY_URL ?? defaultUrl,
    basicAuth: str('basic-auth') ?? env.RUNNEL_SCHEMA_REGISTRY_BASIC_AUTH,
    ca: ca === undefined ? undefined : readFileSync(ca),
  });
}
