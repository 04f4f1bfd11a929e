// ApiVersions lists Produce from v0 (librdkafka's compression check needs it),
// while Produce v0-v2 requests close the connection without a response, as in
// Kafka 4.0 (KAFKA-18659: Processor.parseRequestHeader throws
// UnsupportedVersionException and the network thread closes the channel).
import { describe, expect, it } from 'vitest';
import { Dispatcher } from '../../../broker/src/dispatch.js';
import { buildHandlers } from '../../../broker/src/handlers/support/registry.js';
import { ApiVersions } from '../../../broker/src/protocol/messages/api-versions.js';
import { featureFields } from '../../../broker/src/handlers/api-versions.js';
import { Produce } from '../../../broker/src/protocol/messages/produce.js';
import { decode } from '../../../broker/src/protocol/codec.js';
import { Reader } from '../../../broker/src/protocol/reader.js';
import { newSession } from '../../../broker/src/security/session.js';
import { ErrorCode } from '../../../common/errors.js';
import { WireClient } from '../../helpers/wire.js';
import { unitServices } from '../support/services.js';

const session = newSession(1, '127.0.0.1');
const dispatcher = () => new Dispatcher(buildHandlers(), unitServices());
const strip = (f: Buffer): Buffer => f.subarray(4); // the frame without its size

/** A Produce v0-v2 request (the v0 layout: acks, timeout, topics), written by hand: Runnel's definition starts at v3. */
function oldProduce(version: number, correlationId: number): Buffer {
  const topic = Buffer.from('t');
  const client = Buffer.from('old-client');
  const body = Buffer.alloc(2 + 4 + 4 + 2 + topic.length + 4 + 4 + 4);
  let at = 0;
  at = body.writeInt16BE(1, at); // acks
  at = body.writeInt32BE(1000, at); // timeout
  at = body.writeInt32BE(1, at); // one topic
  at = body.writeInt16BE(topic.length, at);
  at += topic.copy(body, at);
  at = body.writeInt32BE(1, at); // one partition
  at = body.writeInt32BE(0, at); // partition 0
  body.writeInt32BE(-1, at); // null message set
  const header = Buffer.alloc(2 + 2 + 4 + 2 + client.length);
  header.writeInt16BE(0, 0);
  header.writeInt16BE(version, 2);
  header.writeInt32BE(correlationId, 4);
  header.writeInt16BE(client.length, 8);
  client.copy(header, 10);
  return Buffer.concat([header, body]);
}

describe('Produce versions (KAFKA-18659)', () => {
  it('ApiVersions v3 lists Produce 0-12', async () => {
    const res = await dispatcher().dispatch(strip(WireClient.frame(ApiVersions, 3, { clientSoftwareName: 'x', clientSoftwareVersion: '1' }, 7)), session);
    expect(res.kind).toBe('response');
    const frame = Buffer.concat((res as { chunks: Buffer[] }).chunks).subarray(4);
    const body = decode(ApiVersions.response, 3, new Reader(frame, 4)) as { errorCode: number; apiKeys: Array<{ apiKey: number; minVersion: number; maxVersion: number }> };
    expect(body.errorCode).toBe(0);
    expect(body.apiKeys.find((k) => k.apiKey === 0)).toEqual({ apiKey: 0, minVersion: 0, maxVersion: 12 });
  });

  it('the KIP-511 fallback (ApiVersions v0 with UNSUPPORTED_VERSION) lists Produce from 0 too', async () => {
    const res = await dispatcher().dispatch(strip(WireClient.frame(ApiVersions, 4, { clientSoftwareName: 'x', clientSoftwareVersion: '1' }, 8)).fill(0x7f, 2, 3), session);
    const frame = Buffer.concat((res as { chunks: Buffer[] }).chunks).subarray(4);
    const body = decode(ApiVersions.response, 0, new Reader(frame, 4)) as { errorCode: number; apiKeys: Array<{ apiKey: number; minVersion: number }> };
    expect(body.errorCode).toBe(ErrorCode.UNSUPPORTED_VERSION);
    expect(body.apiKeys.find((k) => k.apiKey === 0)?.minVersion).toBe(0);
  });

  for (const v of [0, 1, 2]) {
    it(`Produce v${v} closes the connection, no response`, async () => {
      const res = await dispatcher().dispatch(oldProduce(v, 9), session);
      expect(res).toMatchObject({ kind: 'close', reason: expect.stringMatching(/Produce v\d/) });
    });
  }

  it('Produce v3 is handled and v13 (above the range) is answered UNSUPPORTED_VERSION as before', async () => {
    const d = dispatcher();
    const v3 = await d.dispatch(strip(WireClient.frame(Produce, 3, { transactionalId: null, acks: 1, timeoutMs: 1000, topicData: [] }, 10)), session);
    expect(v3.kind).toBe('response');
    const v13 = Buffer.from(strip(WireClient.frame(Produce, 12, { transactionalId: null, acks: 1, timeoutMs: 1000, topicData: [] }, 11)));
    v13.writeInt16BE(13, 2);
    expect((await d.dispatch(v13, session)).kind).toBe('response');
  });
});

type Features = {
  apiKeys: Array<{ apiKey: number; minVersion: number; maxVersion: number }>;
  supportedFeatures?: Array<{ name: string; minVersion: number; maxVersion: number }>;
  finalizedFeaturesEpoch?: number;
  finalizedFeatures?: Array<{ name: string; maxVersionLevel: number; minVersionLevel: number }>;
};

async function apiVersions(version: number): Promise<Features> {
  const res = await dispatcher().dispatch(strip(WireClient.frame(ApiVersions, version, { clientSoftwareName: 'x', clientSoftwareVersion: '1' }, 12)), session);
  const frame = Buffer.concat((res as { chunks: Buffer[] }).chunks).subarray(4);
  return decode(ApiVersions.response, version, new Reader(frame, 4)) as Features;
}

// Kafka 4.x producers use transactions v2 (KIP-890 part 2) when the finalized
// `transaction.version` is 2 or more (TransactionManager.maybeUpdateTransactionV2Enabled,
// from the features of the highest FinalizedFeaturesEpoch seen); then they send
// EndTxn v5, Produce v12 and TxnOffsetCommit v5, which must be advertised too.
describe('feature flags (group.version, transaction.version)', () => {
  it('v4 lists transaction.version supported 0-2 and finalized at 2, with an epoch a client takes (>= 0)', async () => {
    const body = await apiVersions(4);
    expect(body.supportedFeatures).toContainEqual({ name: 'transaction.version', minVersion: 0, maxVersion: 2 });
    expect(body.finalizedFeatures).toContainEqual({ name: 'transaction.version', maxVersionLevel: 2, minVersionLevel: 2 });
    expect(body.finalizedFeaturesEpoch).toBeGreaterThanOrEqual(0);
  });

  it('v3 lists a supported minimum of 0 as 1 (KAFKA-17011: older clients cannot read 0) and keeps the finalized levels', async () => {
    const body = await apiVersions(3);
    expect(body.supportedFeatures).toEqual([
      { name: 'group.version', minVersion: 1, maxVersion: 1 }, { name: 'transaction.version', minVersion: 1, maxVersion: 2 }, { name: 'share.version', minVersion: 1, maxVersion: 1 },
    ]);
    expect(body.finalizedFeatures).toEqual([
      { name: 'group.version', maxVersionLevel: 1, minVersionLevel: 1 }, { name: 'transaction.version', maxVersionLevel: 2, minVersionLevel: 2 }, { name: 'share.version', maxVersionLevel: 1, minVersionLevel: 1 },
    ]);
  });

  it('share.version 1 is finalized with the share-group APIs listed (KIP-932: ShareGroupHeartbeat v1, ShareGroupDescribe v1, ShareFetch and ShareAcknowledge v1-2)', async () => {
    const body = await apiVersions(4);
    expect(body.finalizedFeatures!.map((f) => f.name)).toEqual(['group.version', 'transaction.version', 'share.version']);
    expect(body.apiKeys.filter((k) => k.apiKey >= 76 && k.apiKey <= 79)).toEqual([
      { apiKey: 76, minVersion: 1, maxVersion: 1 }, { apiKey: 77, minVersion: 1, maxVersion: 1 }, { apiKey: 78, minVersion: 1, maxVersion: 2 }, { apiKey: 79, minVersion: 1, maxVersion: 2 },
    ]);
  });

  it('v3 leaves out a feature supported only at level 0 (1..0 would be an invalid range)', () => {
    const f = featureFields(3, [{ name: 'x.version', minVersion: 0, maxVersion: 0, finalizedLevel: 0 }]);
    expect(f.supportedFeatures).toEqual([]);
    expect(featureFields(4, [{ name: 'x.version', minVersion: 0, maxVersion: 0, finalizedLevel: 0 }]).supportedFeatures).toEqual([{ name: 'x.version', minVersion: 0, maxVersion: 0 }]);
  });

  it('the versions of transactions v2 are listed: EndTxn 0-5, Produce to 12, TxnOffsetCommit 0-5', async () => {
    const keys = (await apiVersions(4)).apiKeys;
    expect(keys.find((k) => k.apiKey === 26)).toEqual({ apiKey: 26, minVersion: 0, maxVersion: 5 });
    expect(keys.find((k) => k.apiKey === 0)?.maxVersion).toBe(12);
    expect(keys.find((k) => k.apiKey === 28)).toEqual({ apiKey: 28, minVersion: 0, maxVersion: 5 });
  });

  it('v0-v2 carry no features (the decoder leaves its defaults)', async () => {
    const body = await apiVersions(2);
    expect(body.apiKeys.length).toBeGreaterThan(0);
    expect(body.finalizedFeatures).toEqual([]);
    expect(body.finalizedFeaturesEpoch).toBe(-1);
  });
});
