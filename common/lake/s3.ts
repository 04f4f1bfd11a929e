// S3 object store. Commits use PutObject with `If-None-Match: *` (S3 conditional
// writes): 412 PreconditionFailed = the key exists (someone else's commit, or our
// own whose response was lost); 409 ConditionalRequestConflict = a concurrent
// conditional write raced us, so we retry the same put.
import {
  S3Client,
  PutObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  DeleteObjectCommand,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import type { ObjectInfo, ObjectStore } from './store.js';

export interface S3StoreOptions {
  bucket: string;
  prefix: string; // without leading/trailing '/'
  endpoint?: string;
  forcePathStyle?: boolean;
  region?: string;
  maxAttempts?: number;
  requestTimeoutMs?: number;
  connectionTimeoutMs?: number;
}

function status(e: unknown): number | undefined {
  return (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class S3Store implements ObjectStore {
  readonly url: string;
  readonly client: S3Client;
  private readonly base: string;
  constructor(private readonly o: S3StoreOptions) {
    this.url = `s3://${o.bucket}/${o.prefix}`;
    this.base = o.prefix ? `${o.prefix}/` : '';
    const cfg: S3ClientConfig = {
      region: o.region ?? process.env.AWS_REGION ?? 'us-east-1',
      forcePathStyle: o.forcePathStyle ?? o.endpoint !== undefined,
      maxAttempts: o.maxAttempts ?? 10,
      requestHandler: { requestTimeout: o.requestTimeoutMs ?? 60_000, connectionTimeout: o.connectionTimeoutMs ?? 10_000 },
    };
    if (o.endpoint) cfg.endpoint = o.endpoint;
    this.client = new S3Client(cfg);
  }

  private k(key: string) {
    return this.base + key;
  }

  async put(key: string, body: Uint8Array): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.o.bucket, Key: this.k(key), Body: body }));
  }

  async putIfAbsent(key: string, body: Uint8Array): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.client.send(
          new PutObjectCommand({ Bucket: this.o.bucket, Key: this.k(key), Body: body, IfNoneMatch: '*' }),
        );
        return true;
      } catch (e) {
        const s = status(e);
        if (s === 412) return false;
        if (s === 409 && attempt < 20) {
          await sleep(Math.min(1000, 20 * 2 ** attempt) * (0.5 + Math.random()));
          continue;
        }
        throw e;
      }
    }
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.o.bucket, Key: this.k(key) }));
      const bytes = await r.Body!.transformToByteArray();
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (e) {
      if (status(e) === 404 || (e as Error).name === 'NoSuchKey') return null;
      throw e;
    }
  }

  async list(prefix: string, startAfter?: string): Promise<ObjectInfo[]> {
    const out: ObjectInfo[] = [];
    let token: string | undefined;
    do {
      const r = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.o.bucket,
          Prefix: this.k(prefix),
          StartAfter: token ? undefined : startAfter !== undefined ? this.k(startAfter) : undefined,
          ContinuationToken: token,
        }),
      );
      for (const c of r.Contents ?? []) {
        if (!c.Key) continue;
        out.push({ key: c.Key.slice(this.base.length), size: c.Size ?? 0, lastModified: c.LastModified?.getTime() ?? 0 });
      }
      token = r.IsTruncated ? r.NextContinuationToken : undefined;
    } while (token);
    return out;
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.o.bucket, Key: this.k(key) }));
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
