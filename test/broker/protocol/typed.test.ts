// Request and response types are inferred from the message definitions
// (protocol/typed.ts). The expectTypeOf assertions are checked by
// `tsc -p tsconfig.test.json` (a CI step): if inference broke (a field typed
// any, a lost literal name, a wrong primitive), that step fails. The runtime
// assertions check that the codec produces what the types claim.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { decode, encode } from '../../../broker/src/protocol/codec.js';
import { Reader } from '../../../broker/src/protocol/reader.js';
import { Produce } from '../../../broker/src/protocol/messages/produce.js';
import { Fetch } from '../../../broker/src/protocol/messages/fetch.js';
import { Metadata } from '../../../broker/src/protocol/messages/metadata.js';
import type { Element, RequestOf, ResponseOf } from '../../../broker/src/protocol/typed.js';
import type { HandlerOf } from '../../../broker/src/handlers/support/types.js';
import { produceHandler } from '../../../broker/src/handlers/produce.js';

type ProduceRequest = RequestOf<typeof Produce>;
type ProducePartition = Element<Element<ProduceRequest['topicData']>['partitionData']>;
type FetchPartition = Element<Element<RequestOf<typeof Fetch>['topics']>['partitions']>;
type ProduceAnswer = Element<Element<ResponseOf<typeof Produce>['responses']>['partitionResponses']>;

describe('types derived from the message definitions', () => {
  it('requests: every field present, camelCase keys, primitives mapped, nullable fields | null', () => {
    expectTypeOf<keyof ProduceRequest>().toEqualTypeOf<'transactionalId' | 'acks' | 'timeoutMs' | 'topicData'>();
    expectTypeOf<ProduceRequest['acks']>().toEqualTypeOf<number>();
    expectTypeOf<ProduceRequest['transactionalId']>().toEqualTypeOf<string | null>();
    expectTypeOf<ProducePartition>().toEqualTypeOf<{ index: number; records: Buffer | null }>();
    // int64 decodes to a number (reader.ts), uuid to a string; a field of later versions is still present (its default).
    expectTypeOf<FetchPartition['fetchOffset']>().toEqualTypeOf<number>();
    expectTypeOf<Element<RequestOf<typeof Fetch>['topics']>['topicId']>().toEqualTypeOf<string>();
    // Metadata's topic list is nullable from v1 (null: all topics).
    expectTypeOf<RequestOf<typeof Metadata>['topics']>().toEqualTypeOf<Array<{ topicId: string; name: string | null }> | null>();
  });

  it('responses: fields every version carries are required, the rest optional; int64 may be a bigint', () => {
    expectTypeOf<ResponseOf<typeof Produce>>().toHaveProperty('responses');
    expectTypeOf<ProduceAnswer['errorCode']>().toEqualTypeOf<number>();
    expectTypeOf<ProduceAnswer['baseOffset']>().toEqualTypeOf<number | bigint>();
    // v2+ and defaulted: optional (the codec writes the default, -1).
    expectTypeOf<ProduceAnswer['logAppendTimeMs']>().toEqualTypeOf<number | bigint | undefined>();
    expectTypeOf<{ index: 0; baseOffset: 1 }>().not.toMatchTypeOf<ProduceAnswer>(); // errorCode is required
  });

  it('a handler receives its own request type', () => {
    expectTypeOf(produceHandler).toEqualTypeOf<HandlerOf<typeof Produce>>();
    expectTypeOf<Parameters<HandlerOf<typeof Produce>['handle']>[0]>().toEqualTypeOf<ProduceRequest>();
  });

  it('decode produces exactly the typed keys, absent and nullable fields included', () => {
    const body: ResponseOf<typeof Produce> = { responses: [] };
    expect(encode(Produce.response, 3, body).toBuffer().length).toBeGreaterThan(0);
    const w = encode(Produce.request, 3, { transactionalId: null, acks: 1, timeoutMs: 5, topicData: [{ name: 't', partitionData: [{ index: 2, records: null }] }] });
    const req = decode(Produce.request, 3, new Reader(w.toBuffer()));
    const keys: Array<keyof ProduceRequest> = ['acks', 'timeoutMs', 'topicData', 'transactionalId'];
    expect(Object.keys(req).sort()).toEqual(keys);
    expect(req.topicData[0]!.partitionData[0]).toEqual({ index: 2, records: null });
    const fetch = decode(Fetch.request, 4, new Reader(encode(Fetch.request, 4, {
      maxWaitMs: 1, minBytes: 1, topics: [{ topic: 't', partitions: [{ partition: 0, fetchOffset: 7, partitionMaxBytes: 10 }] }],
    }).toBuffer()));
    // v4 carries no topic id and no session: decode fills their defaults, as the types promise.
    expect(fetch.topics[0]!.topicId).toBe('00000000-0000-0000-0000-000000000000');
    expect(fetch.sessionEpoch).toBe(-1);
    expect(fetch.topics[0]!.partitions[0]!.fetchOffset).toBe(7);
  });

  it('no handler casts its request or falls back to any', () => {
    const dir = fileURLToPath(new URL('../../../broker/src/handlers', import.meta.url));
    const offending: string[] = [];
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
      readFileSync(join(dir, name), 'utf8').split('\n').forEach((line, i) => {
        if (/ as Record<|: any\b|<any>|\bas any\b|\bany\[\]|\breq\.\w+ as /.test(line)) offending.push(`${name}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(offending).toEqual([]);
  });
});
