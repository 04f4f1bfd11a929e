import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalStore } from './local.js';
import type { ObjectInfo, ObjectStore } from './store.js';

export type { ObjectStore, ObjectInfo } from './store.js';
export { LocalStore } from './local.js';

export interface LakeOptions {
  s3Endpoint?: string;
  s3ForcePathStyle?: boolean;
  s3Region?: string;
  /** S3 attempts per request (the SDK's retries of 5xx, throttling and resets; default 10, the archiver's). */
  s3MaxAttempts?: number;
  /** S3 request and connection timeouts (defaults 60 s and 10 s). */
  s3RequestTimeoutMs?: number;
  s3ConnectionTimeoutMs?: number;
}

/** Open the lake root: `file:///abs/path`, a plain path, or `s3://bucket/prefix`. */
export function openLake(lake: string, o: LakeOptions = {}): ObjectStore {
  if (lake.startsWith('s3://') || lake.startsWith('s3a://')) {
    const rest = lake.replace(/^s3a?:\/\//, '');
    const slash = rest.indexOf('/');
    const bucket = slash < 0 ? rest : rest.slice(0, slash);
    const prefix = slash < 0 ? '' : rest.slice(slash + 1).replace(/^\/+|\/+$/g, '');
    return new LazyS3Store(`s3://${bucket}/${prefix}`, () =>
      import('./s3.js').then(({ S3Store }) => new S3Store({ bucket, prefix, endpoint: o.s3Endpoint, forcePathStyle: o.s3ForcePathStyle, region: o.s3Region, maxAttempts: o.s3MaxAttempts, requestTimeoutMs: o.s3RequestTimeoutMs, connectionTimeoutMs: o.s3ConnectionTimeoutMs })),
    );
  }
  const root = lake.startsWith('file://') ? fileURLToPath(lake) : path.resolve(lake);
  return new LocalStore(root.replace(/\/+$/, ''));
}

/**
 * An S3 lake whose AWS SDK loads on the first call: the SDK is the largest
 * module the archiver has, and a local lake never needs it.
 */
class LazyS3Store implements ObjectStore {
  private store: Promise<ObjectStore> | undefined;
  constructor(
    readonly url: string,
    private readonly open: () => Promise<ObjectStore>,
  ) {}
  private get s(): Promise<ObjectStore> {
    return (this.store ??= this.open());
  }
  async put(key: string, body: Uint8Array): Promise<void> {
    return (await this.s).put(key, body);
  }
  async putIfAbsent(key: string, body: Uint8Array): Promise<boolean> {
    return (await this.s).putIfAbsent(key, body);
  }
  async get(key: string): Promise<Buffer | null> {
    return (await this.s).get(key);
  }
  async list(prefix: string, startAfter?: string): Promise<ObjectInfo[]> {
    return (await this.s).list(prefix, startAfter);
  }
  async delete(key: string): Promise<void> {
    return (await this.s).delete(key);
  }
  async close(): Promise<void> {
    if (this.store) await (await this.store).close();
  }
}
