// Archiver settings: an S3 endpoint implies path-style addressing unless set explicitly.
import { describe, expect, it } from 'vitest';
import { archiverHttpSettings, loadConfig } from '../../../archiver/src/config.js';
import { S3Store } from '../../../common/lake/s3.js';

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

describe('archiver config: HTTP endpoint', () => {
  it('binds loopback by default; RUNNEL_ARCHIVER_HTTP_* set host, auth and TLS; a bad client-auth value is named', () => {
    expect(archiverHttpSettings(loadConfig({}))).toEqual({
      host: '127.0.0.1', port: 0, bearerToken: '', basicUser: '', basicPassword: '', keystoreLocation: '', keyPassword: '', truststoreLocation: '', clientAuth: 'none',
    });
    const env = {
      RUNNEL_ARCHIVER_HTTP_PORT: '9100', RUNNEL_ARCHIVER_HTTP_HOST: '0.0.0.0', RUNNEL_ARCHIVER_HTTP_AUTH_BEARER_TOKEN: 't',
      RUNNEL_ARCHIVER_HTTP_AUTH_BASIC_USER: 'u', RUNNEL_ARCHIVER_HTTP_AUTH_BASIC_PASSWORD: 'p', RUNNEL_ARCHIVER_HTTP_SSL_KEYSTORE_LOCATION: '/k.pem',
      RUNNEL_ARCHIVER_HTTP_SSL_KEY_PASSWORD: 'kp', RUNNEL_ARCHIVER_HTTP_SSL_TRUSTSTORE_LOCATION: '/ca.pem', RUNNEL_ARCHIVER_HTTP_SSL_CLIENT_AUTH: 'REQUIRED',
    };
    expect(archiverHttpSettings(loadConfig(env))).toEqual({
      host: '0.0.0.0', port: 9100, bearerToken: 't', basicUser: 'u', basicPassword: 'p', keystoreLocation: '/k.pem', keyPassword: 'kp', truststoreLocation: '/ca.pem', clientAuth: 'required',
    });
    expect(() => archiverHttpSettings(loadConfig({ RUNNEL_ARCHIVER_HTTP_SSL_CLIENT_AUTH: 'yes' }))).toThrow(/RUNNEL_ARCHIVER_HTTP_SSL_CLIENT_AUTH=yes \(expected none, requested or required\)/);
  });
});
