// Archiver settings: an S3 endpoint implies path-style addressing unless set explicitly.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../archiver/src/config.js';
import { S3Store } from '../../../archiver/src/storage/s3.js';

describe('archiver config: S3 path style', () => {
  it('defaults to path style when an endpoint is given, virtual-hosted otherwise; an explicit value wins', async () => {
    expect(loadConfig({ RUNNEL_S3_ENDPOINT: 'http://localhost:9000' }).s3ForcePathStyle).toBe(true);
    expect(loadConfig({}).s3ForcePathStyle).toBe(false);
    expect(loadConfig({ RUNNEL_S3_ENDPOINT: 'http://localhost:9000', RUNNEL_S3_FORCE_PATH_STYLE: 'false' }).s3ForcePathStyle).toBe(false);
    expect(loadConfig({ RUNNEL_S3_FORCE_PATH_STYLE: 'true' }).s3ForcePathStyle).toBe(true);
    const withEndpoint = new S3Store({ bucket: 'b', prefix: '', endpoint: 'http://localhost:9000' });
    expect(await withEndpoint.client.config.forcePathStyle).toBe(true);
    const aws = new S3Store({ bucket: 'b', prefix: '' });
    expect(await aws.client.config.forcePathStyle).toBe(false);
    withEndpoint.client.destroy();
    aws.client.destroy();
  });
});
