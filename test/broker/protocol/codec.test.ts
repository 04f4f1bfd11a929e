// Unit tests of the codec engine, driven by the message definitions.
import { describe, expect, it } from 'vitest';
import { decode, encode, skipTaggedFields } from '../../../broker/src/protocol/codec.js';
import { ALL_APIS } from '../../../broker/src/protocol/messages/index.js';
import { ApiVersions } from '../../../broker/src/protocol/messages/api-versions.js';
import { Fetch } from '../../../broker/src/protocol/messages/fetch.js';
import { Metadata } from '../../../broker/src/protocol/messages/metadata.js';
import { Produce } from '../../../broker/src/protocol/messages/produce.js';
import { Reader } from '../../../broker/src/protocol/reader.js';
import { Writer } from '../../../broker/src/protocol/writer.js';
import type { FieldDef, MessageDef } from '../../../broker/src/protocol/schema.js';
import { f, message } from '../../../broker/src/protocol/schema.js';
import { inVersions, parseVersions } from '../../../broker/src/protocol/versions.js';
import { ProtocolError } from '../../../common/errors.js';

type Obj = Record<string, any>;

const camel = (n: string) => n.charAt(0).toLowerCase() + n.slice(1);

/** Deterministic sample values for one primitive type. */
function sampleValue(type: string, seed: number): unknown {
  switch (type) {
    case 'int8': return (seed % 100) - 3;
    case 'int16': return 300 + seed;
    case 'uint16': return 65000 - seed;
    case 'int32': return 70000 + seed;
    case 'int64': return 5_000_000_000 + seed;
    case 'float64': return 1.5 + seed;
    case 'bool': return seed % 2 === 0;
    case 'string': return `s${seed}-é`;
    case 'bytes': return Buffer.from([seed & 0xff, 1, 2, 3]);
    case 'records': return Buffer.from([9, 8, 7, seed & 0xff]);
    case 'uuid': return `0123456789ab4def8123${String(seed).padStart(12, '0')}`.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
    default: throw new Error(`no sample for ${type}`);
  }
}

/**
 * A sample object holding every field present at `version`, with non-default
 * values. With `nulls`, every nullable field is null instead.
 */
function sample(fields: readonly FieldDef[], version: number, nulls: boolean, seed = 1): Obj {
  const o: Obj = {};
  for (const fd of fields) {
    if (!inVersions(fd.versions, version)) continue;
    seed += 1;
    const key = camel(fd.name);
    if (nulls && inVersions(fd.nullableVersions, version)) {
      o[key] = null;
      continue;
    }
    const array = fd.type.startsWith('[]');
    if (fd.fields) {
      o[key] = array
        ? [sample(fd.fields, version, nulls, seed * 10), sample(fd.fields, version, nulls, seed * 10 + 5)]
        : sample(fd.fields, version, nulls, seed * 10);
    } else if (array) {
      const t = fd.type.slice(2);
      o[key] = [sampleValue(t, seed), sampleValue(t, seed + 1)];
    } else {
      o[key] = sampleValue(fd.type, seed);
    }
  }
  return o;
}

function enc(msg: MessageDef, v: number, value: Obj): Buffer {
  return encode(msg, v, value).toBuffer();
}

function dec(msg: MessageDef, v: number, buf: Buffer): Obj {
  const r = new Reader(buf);
  const o = decode(msg, v, r);
  expect(r.remaining(), `${msg.name} v${v} left bytes unread`).toBe(0);
  return o;
}

function versionsOf(msg: MessageDef): number[] {
  const r = parseVersions(msg.validVersions);
  const out: number[] = [];
  for (let v = r.min; v <= r.max; v++) out.push(v);
  return out;
}

const ALL_MESSAGES = ALL_APIS.flatMap((a) => [a.request, a.response]);

describe('round-trips every API at every supported version', () => {
  for (const msg of ALL_MESSAGES) {
    for (const v of versionsOf(msg)) {
      it(`${msg.name} v${v}`, () => {
        for (const nulls of [false, true]) {
          const value = sample(msg.fields, v, nulls);
          const bytes = enc(msg, v, value);
          const back = dec(msg, v, bytes);
          expect(back).toMatchObject(value);
          expect(enc(msg, v, back).equals(bytes), 're-encoding a decoded message gives the same bytes').toBe(true);
        }
        // an empty object encodes every field's default and decodes to the defaults
        const empty = enc(msg, v, {});
        const d = dec(msg, v, empty);
        expect(enc(msg, v, d).equals(empty)).toBe(true);
      });
    }
  }
});

describe('truncated input', () => {
  for (const msg of ALL_MESSAGES) {
    it(`${msg.name}: every proper prefix of every version throws ProtocolError`, () => {
      for (const v of versionsOf(msg)) {
        const bytes = enc(msg, v, sample(msg.fields, v, false));
        for (let n = 0; n < bytes.length; n++) {
          expect(() => decode(msg, v, new Reader(bytes.subarray(0, n))), `${msg.name} v${v} prefix ${n}`).toThrow(ProtocolError);
        }
      }
    });
  }

  it('a reader bounded by `end` never reads past it', () => {
    const bytes = enc(Produce.request, 3, sample(Produce.request.fields, 3, false));
    const padded = Buffer.concat([bytes, Buffer.alloc(64, 0xff)]);
    expect(() => decode(Produce.request, 3, new Reader(padded, 0, bytes.length - 1))).toThrow(ProtocolError);
    expect(decode(Produce.request, 3, new Reader(padded, 0, bytes.length))).toMatchObject({ acks: expect.any(Number) });
  });
});

describe('non-flexible encodings', () => {
  it('ApiVersions v0 response: int16 error, int32 array length, no tagged fields', () => {
    const b = enc(ApiVersions.response, 0, { errorCode: 35, apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 4 }] });
    expect(b.toString('hex')).toBe('0023' + '00000001' + '0012' + '0000' + '0004');
  });

  it('strings are int16-length prefixed; null string is -1', () => {
    const v3 = { transactionalId: 'tx', acks: -1, timeoutMs: 1000, topicData: [] };
    expect(enc(Produce.request, 3, v3).toString('hex')).toBe('0002' + '7478' + 'ffff' + '000003e8' + '00000000');
    const nul = enc(Produce.request, 3, { ...v3, transactionalId: null });
    expect(nul.toString('hex')).toBe('ffff' + 'ffff' + '000003e8' + '00000000');
    expect(dec(Produce.request, 3, nul).transactionalId).toBeNull();
  });

  it('nullable arrays: null is int32 -1 (Metadata v1 Topics)', () => {
    const b = enc(Metadata.request, 1, { topics: null });
    expect(b.toString('hex')).toBe('ffffffff');
    expect(dec(Metadata.request, 1, b).topics).toBeNull();
    expect(dec(Metadata.request, 1, enc(Metadata.request, 1, { topics: [] })).topics).toEqual([]);
  });

  it('fields absent in a version decode to their defaults', () => {
    const d = dec(Produce.request, 3, enc(Produce.request, 3, { acks: 1, timeoutMs: 5, topicData: [] }));
    expect(d.transactionalId).toBeNull();
    const r = dec(Fetch.response, 4, enc(Fetch.response, 4, {
      responses: [{ topic: 't', partitions: [{ partitionIndex: 0, records: null }] }],
    }));
    const p = r.responses[0].partitions[0];
    expect(p.logStartOffset).toBe(-1);
    expect(p.preferredReadReplica).toBe(-1);
    expect(p.currentLeader).toEqual({ leaderId: -1, leaderEpoch: -1 });
    expect(r.sessionId).toBe(0);
  });
});

describe('flexible (compact) encodings', () => {
  it('compact strings: uvarint(len+1), then an empty tagged-field section', () => {
    const b = enc(ApiVersions.request, 3, { clientSoftwareName: 'abc', clientSoftwareVersion: '1.0' });
    expect(b.toString('hex')).toBe('04616263' + '04312e30' + '00');
  });

  it('compact arrays and per-struct tagged sections', () => {
    const b = enc(ApiVersions.response, 3, {
      errorCode: 0, apiKeys: [{ apiKey: 0, minVersion: 3, maxVersion: 11 }], throttleTimeMs: 0,
    });
    // error, array len 1+1, (key,min,max, no tags), throttle, no tags
    expect(b.toString('hex')).toBe('0000' + '02' + '0000' + '0003' + '000b' + '00' + '00000000' + '00');
  });

  it('compact nullable string and array: null is uvarint 0', () => {
    const b = enc(Produce.request, 9, { transactionalId: null, acks: 1, timeoutMs: 0, topicData: [] });
    expect(b.toString('hex')).toBe('00' + '0001' + '00000000' + '01' + '00');
    const m = enc(Metadata.request, 9, { topics: null, allowAutoTopicCreation: true });
    expect(m.toString('hex')).toBe('00' + '01' + '00' + '00' + '00');
    expect(dec(Metadata.request, 9, m).topics).toBeNull();
  });

  it('long compact lengths use multi-byte uvarints', () => {
    const name = 'x'.repeat(200);
    const b = enc(ApiVersions.request, 3, { clientSoftwareName: name, clientSoftwareVersion: '' });
    expect(b.subarray(0, 2).toString('hex')).toBe('c901'); // 201
    expect(dec(ApiVersions.request, 3, b).clientSoftwareName).toBe(name);
  });

  it('large records survive the zero-copy writer path', () => {
    const records = Buffer.alloc(10_000, 7);
    const value = { acks: -1, timeoutMs: 10, topicData: [{ name: 't', partitionData: [{ index: 0, records }] }] };
    for (const v of [3, 9, 11]) {
      const w = encode(Produce.request, v, value);
      expect(w.toChunks().length).toBeGreaterThan(1);
      const back = dec(Produce.request, v, w.toBuffer());
      expect(back.topicData[0].partitionData[0].records.equals(records)).toBe(true);
    }
  });

  it('records given as a list of stored batches are written back to back', () => {
    const a = Buffer.from([1, 2, 3]);
    const b = Buffer.from([4, 5]);
    const value = { acks: 1, timeoutMs: 0, topicData: [{ name: 't', partitionData: [{ index: 0, records: [a, b] }] }] };
    const back = dec(Produce.request, 9, enc(Produce.request, 9, value));
    expect([...back.topicData[0].partitionData[0].records]).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('tagged fields', () => {
  it('fields at their default are not written; others are, in tag order', () => {
    const base = { errorCode: 0, apiKeys: [], throttleTimeMs: 0 };
    const plain = enc(ApiVersions.response, 3, { ...base, finalizedFeaturesEpoch: -1, zkMigrationReady: false });
    expect(plain[plain.length - 1]).toBe(0);
    const b = enc(ApiVersions.response, 3, { ...base, zkMigrationReady: true, finalizedFeaturesEpoch: 7 });
    // tail: count 2, tag 1 size 8 int64 7, tag 3 size 1 true
    expect(b.subarray(b.length - 14).toString('hex')).toBe('02' + '01' + '08' + '0000000000000007' + '03' + '01' + '01');
    const d = dec(ApiVersions.response, 3, b);
    expect(d.zkMigrationReady).toBe(true);
    expect(d.finalizedFeaturesEpoch).toBe(7);
    expect(d.supportedFeatures).toEqual([]);
  });

  it('absent tagged fields decode to their defaults', () => {
    const d = dec(ApiVersions.response, 3, enc(ApiVersions.response, 3, { errorCode: 0, apiKeys: [], throttleTimeMs: 0 }));
    expect(d.finalizedFeaturesEpoch).toBe(-1);
    expect(d.zkMigrationReady).toBe(false);
    expect(d.finalizedFeatures).toEqual([]);
  });

  it('unknown tags are skipped', () => {
    // ApiVersions v3 request: two compact strings, then 2 tagged fields: tag 99 (3 bytes), tag 200 (0 bytes)
    const b = Buffer.from('0261' + '0262' + '02' + '63' + '03' + 'aabbcc' + 'c801' + '00', 'hex');
    expect(dec(ApiVersions.request, 3, b)).toEqual({ clientSoftwareName: 'a', clientSoftwareVersion: 'b' });
  });

  it('unknown tags inside nested structs are skipped', () => {
    const b = Buffer.from('0000' + '02' + '0001' + '0000' + '0009' + '01' + '05' + '02' + 'ffff' + '00000000' + '00', 'hex');
    const d = dec(ApiVersions.response, 3, b);
    expect(d.apiKeys).toEqual([{ apiKey: 1, minVersion: 0, maxVersion: 9 }]);
  });

  it('a tagged field whose size overruns the message throws ProtocolError', () => {
    const unknown = Buffer.from('0261' + '0262' + '01' + '63' + '10' + 'aabb', 'hex');
    expect(() => decode(ApiVersions.request, 3, new Reader(unknown))).toThrow(ProtocolError);
    const known = Buffer.from('0000' + '01' + '00000000' + '01' + '01' + '10' + '0000', 'hex');
    expect(() => decode(ApiVersions.response, 3, new Reader(known))).toThrow(ProtocolError);
  });

  it('a known tagged field is decoded only from its own bytes', () => {
    // tag 1 (int64) declared with size 4: reading 8 bytes must fail, not borrow following bytes
    const b = Buffer.from('0000' + '01' + '00000000' + '01' + '01' + '04' + '00000007' + '00000000', 'hex');
    expect(() => decode(ApiVersions.response, 3, new Reader(b))).toThrow(ProtocolError);
  });

  it('a tagged struct equal to its default is not written', () => {
    const value = { replicaState: { replicaId: -1, replicaEpoch: -1 }, topics: [], forgottenTopicsData: [] };
    const a = enc(Fetch.request, 15, value);
    expect(a.equals(enc(Fetch.request, 15, { topics: [], forgottenTopicsData: [] }))).toBe(true);
    const b = enc(Fetch.request, 15, { ...value, replicaState: { replicaId: 2, replicaEpoch: -1 } });
    expect(b.length).toBeGreaterThan(a.length);
    expect(dec(Fetch.request, 15, b).replicaState).toEqual({ replicaId: 2, replicaEpoch: -1 });
  });

  it('tagged struct fields (Fetch v12 CurrentLeader) round-trip', () => {
    const value = {
      responses: [{ topic: 't', partitions: [{ partitionIndex: 1, records: null, currentLeader: { leaderId: 3, leaderEpoch: 9 } }] }],
    };
    const d = dec(Fetch.response, 12, enc(Fetch.response, 12, value));
    expect(d.responses[0].partitions[0].currentLeader).toEqual({ leaderId: 3, leaderEpoch: 9 });
    expect(d.responses[0].partitions[0].divergingEpoch).toEqual({ epoch: -1, endOffset: -1 });
  });

  it('skipTaggedFields skips a whole section', () => {
    const r = new Reader(Buffer.from('02' + '00' + '01' + 'ff' + '05' + '00' + '7f', 'hex'));
    skipTaggedFields(r);
    expect(r.remaining()).toBe(1);
  });
});

describe('nullability is enforced', () => {
  it('encoding null into a non-nullable string or array throws ProtocolError', () => {
    expect(() => enc(ApiVersions.request, 3, { clientSoftwareName: null })).toThrow(ProtocolError);
    expect(() => enc(Metadata.request, 0, { topics: null })).toThrow(ProtocolError);
    expect(() => enc(Produce.request, 3, { acks: 1, timeoutMs: 1, topicData: null })).toThrow(ProtocolError);
  });

  it('decoding null for a non-nullable string or array throws ProtocolError', () => {
    expect(() => decode(ApiVersions.request, 3, new Reader(Buffer.from('00' + '00' + '00', 'hex')))).toThrow(ProtocolError);
    expect(() => decode(Metadata.request, 0, new Reader(Buffer.from('ffffffff', 'hex')))).toThrow(ProtocolError);
    expect(() => decode(Produce.request, 3, new Reader(Buffer.from('ffff' + '0001' + '00000001' + 'ffffffff', 'hex')))).toThrow(ProtocolError);
  });

  it('nullable bytes and records', () => {
    const value = { acks: 1, timeoutMs: 1, topicData: [{ name: 't', partitionData: [{ index: 0, records: null }] }] };
    for (const v of [3, 9]) {
      const d = dec(Produce.request, v, enc(Produce.request, v, value));
      expect(d.topicData[0].partitionData[0].records).toBeNull();
    }
  });

  it('nullable structs use an int8 presence marker', () => {
    const inner = [f('A', 'int32', '0+')];
    const msg = message('TestMessage', '0-1', '1+', [
      { ...f('S', 'Inner', '0+', { nullable: '0+' }), fields: inner },
      f('B', 'int8', '0+'),
    ]);
    expect(enc(msg, 0, { s: null, b: 1 }).toString('hex')).toBe('ff01');
    expect(enc(msg, 0, { s: { a: 2 }, b: 1 }).toString('hex')).toBe('010000000201');
    expect(dec(msg, 0, Buffer.from('ff01', 'hex'))).toEqual({ s: null, b: 1 });
    expect(dec(msg, 1, enc(msg, 1, { s: { a: 5 }, b: 2 }))).toEqual({ s: { a: 5 }, b: 2 });
  });
});

describe('hostile length prefixes', () => {
  it('int32 array lengths larger than the remaining bytes throw ProtocolError', () => {
    for (const len of ['7fffffff', '00010000', '00000005']) {
      const b = Buffer.from(len + '0000', 'hex');
      expect(() => decode(Metadata.request, 0, new Reader(b))).toThrow(ProtocolError);
    }
  });

  it('negative array lengths: null when nullable (as Kafka), ProtocolError otherwise', () => {
    expect(decode(Metadata.request, 1, new Reader(Buffer.from('fffffffe', 'hex'))).topics).toBeNull();
    expect(() => decode(Metadata.request, 0, new Reader(Buffer.from('fffffffe', 'hex')))).toThrow(ProtocolError);
    expect(() => decode(Metadata.request, 0, new Reader(Buffer.from('80000000', 'hex')))).toThrow(ProtocolError);
  });

  it('compact array lengths larger than the remaining bytes throw ProtocolError', () => {
    for (const len of ['ffffffff0f', 'ffffff7f', '8080800800']) {
      const b = Buffer.from(len + '0000', 'hex');
      expect(() => decode(Metadata.request, 9, new Reader(b))).toThrow(ProtocolError);
    }
  });

  it('over-long varints throw ProtocolError', () => {
    expect(() => decode(Metadata.request, 9, new Reader(Buffer.from('ffffffffffff01', 'hex')))).toThrow(ProtocolError);
  });

  it('string and bytes lengths larger than the input throw ProtocolError', () => {
    expect(() => decode(ApiVersions.request, 3, new Reader(Buffer.from('ff7f41', 'hex')))).toThrow(ProtocolError);
    const produce = Buffer.from('7fff41', 'hex');
    expect(() => decode(Produce.request, 3, new Reader(produce))).toThrow(ProtocolError);
    const rec = Buffer.from('ffff' + '0001' + '00000001' + '00000001' + '0001' + '74' + '00000001' + '00000000' + '7fffffff' + '00', 'hex');
    expect(() => decode(Produce.request, 3, new Reader(rec))).toThrow(ProtocolError);
  });

  it('a hostile tagged-field count or size throws ProtocolError', () => {
    expect(() => decode(ApiVersions.request, 3, new Reader(Buffer.from('0261' + '0262' + 'ffffffff0f', 'hex')))).toThrow(ProtocolError);
    expect(() => decode(ApiVersions.request, 3, new Reader(Buffer.from('0261' + '0262' + '01' + '05' + 'ffffffff0f', 'hex')))).toThrow(ProtocolError);
  });

  it('unsupported versions throw ProtocolError', () => {
    expect(() => decode(Produce.request, 2, new Reader(Buffer.alloc(100)))).toThrow(ProtocolError);
    expect(() => encode<MessageDef>(Produce.request, 13, {})).toThrow(ProtocolError);
  });
});

describe('writer primitives', () => {
  it('int64 round-trips exactly within the safe integer range', () => {
    for (const x of [0, -1, 1, 2 ** 53 - 1, -(2 ** 53 - 1), 1_700_000_000_000, -4_294_967_296]) {
      const w = new Writer(1).int64(x);
      expect(new Reader(w.toBuffer()).int64()).toBe(x);
    }
  });

  it('varints and varlongs round-trip', () => {
    for (const x of [0, 1, -1, 63, -64, 64, 300, -300, 2 ** 31 - 1, -(2 ** 31)]) {
      expect(new Reader(new Writer(1).varint(x).toBuffer()).varint()).toBe(x);
    }
    for (const x of [0, -1, 2 ** 40, -(2 ** 40), 2 ** 53 - 1]) {
      expect(new Reader(new Writer(1).varlong(x).toBuffer()).varlong()).toBe(x);
    }
    for (const x of [0, 127, 128, 16383, 16384, 2 ** 31]) {
      expect(new Reader(new Writer(1).uvarint(x).toBuffer()).uvarint()).toBe(x);
    }
  });
});
