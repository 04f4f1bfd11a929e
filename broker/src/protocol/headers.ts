// Request header v0-v2 and response header v0-v1.
import { Reader } from './reader.js';
import { Writer } from './writer.js';
import { skipTaggedFields } from './codec.js';
import { ProtocolError } from '../../../common/errors.js';

export interface RequestHeader {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
}

/** Reads the fixed prefix every header version shares (key, version, correlation id). */
export function readHeaderPrefix(r: Reader): Pick<RequestHeader, 'apiKey' | 'apiVersion' | 'correlationId'> {
  return { apiKey: r.int16(), apiVersion: r.int16(), correlationId: r.int32() };
}

/**
 * Completes a header after the prefix. Header v1 adds a (non-compact) nullable
 * client id; v2 adds a tagged-field section. ControlledShutdown v0 alone used v0.
 */
export function readHeaderRest(r: Reader, headerVersion: number): string | null {
  if (headerVersion < 1) return null;
  const n = r.int16();
  let clientId: string | null = null;
  if (n >= 0) clientId = r.utf8(n);
  else if (n !== -1) throw new ProtocolError(`bad client id length ${n}`);
  if (headerVersion >= 2) skipTaggedFields(r);
  return clientId;
}

export function writeResponseHeader(w: Writer, correlationId: number, headerVersion: number): void {
  w.int32(correlationId);
  if (headerVersion >= 1) w.uvarint(0);
}
