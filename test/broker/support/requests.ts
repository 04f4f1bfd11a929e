// A request as a handler receives it: the body goes through the codec (encoded
// at `version`, then decoded), so fields the version lacks or the body leaves
// out hold their defaults, exactly as after a dispatch.
import { decode, encode } from '../../../broker/src/protocol/codec.js';
import { Reader } from '../../../broker/src/protocol/reader.js';
import type { ApiDef } from '../../../broker/src/protocol/schema.js';
import type { Encodable, RequestOf } from '../../../broker/src/protocol/typed.js';

export function wireRequest<A extends ApiDef>(api: A, version: number, body: Encodable<A['request']>): RequestOf<A> {
  const buf = encode<A['request']>(api.request, version, body).toBuffer();
  return decode<A['request']>(api.request, version, new Reader(buf));
}
