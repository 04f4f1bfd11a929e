import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalStore } from './local.js';
import { S3Store } from './s3.js';
import type { ObjectStore } from './store.js';

export type { ObjectStore, ObjectInfo } from './store.js';
export { LocalStore } from './local.js';
export { S3Store } from './s3.js';

export interface LakeOptions {
  s3Endpoint?: string;
  s3ForcePathStyle?: boolean;
  s3Region?: string;
}

/** Open the lake root: `file:///abs/path`, a plain path, or `s3://bucket/prefix`. */
export function openLake(lake: string, o: LakeOptions = {}): ObjectStore {
  if (lake.startsWith('s3://') || lake.startsWith('s3a://')) {
    const rest = lake.replace(/^s3a?:\/\//, '');
    const slash = rest.indexOf('/');
    const bucket = slash < 0 ? rest : rest.slice(0, slash);
    const prefix = slash < 0 ? '' : rest.slice(slash + 1).replace(/^\/+|\/+$/g, '');
    return new S3Store({ bucket, prefix, endpoint: o.s3Endpoint, forcePathStyle: o.s3ForcePathStyle, region: o.s3Region });
  }
  const root = lake.startsWith('file://') ? fileURLToPath(lake) : path.resolve(lake);
  return new LocalStore(root.replace(/\/+$/, ''));
}
