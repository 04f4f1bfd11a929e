// Sans-IO request dispatch: one frame in, one encoded response (or none) out.
import { decode, encode, isFlexible } from './protocol/codec.js';
import { readHeaderPrefix, readHeaderRest, writeResponseHeader } from './protocol/headers.js';
import { Reader } from './protocol/reader.js';
import { Writer } from './protocol/writer.js';
import { parseVersions } from './protocol/versions.js';
import type { ApiDef, FieldDef } from './protocol/schema.js';
import { ErrorCode, KafkaError, ProtocolError, RunnelError } from './errors.js';
import type { BrokerServices, Handler, RequestContext } from './handlers/types.js';
import { camel } from './protocol/codec.js';
import type { Session } from './security/session.js';
import type { RequestObserver } from './http/request-metrics.js';

export type DispatchResult =
  | { kind: 'response'; chunks: Buffer[]; apiKey: number }
  | { kind: 'none' }
  | { kind: 'close'; reason: string };

const API_VERSIONS_KEY = 18;

export class Dispatcher {
  private readonly byKey = new Map<number, Handler>();

  constructor(handlers: Handler[], private readonly broker: BrokerServices, private readonly observer: RequestObserver | null = null) {
    for (const h of handlers) {
      const valid = parseVersions(h.api.request.validVersions);
      if (h.minVersion < valid.min || h.maxVersion > valid.max) throw new Error(`${h.api.name}: advertised ${h.minVersion}-${h.maxVersion} outside its definition`);
      this.byKey.set(h.api.apiKey, h);
    }
  }

  /** The broker settings the handlers run with (the listener takes its limits from them). */
  get config(): BrokerServices['config'] {
    return this.broker.config;
  }

  handlers(): Handler[] {
    return [...this.byKey.values()].sort((a, b) => a.api.apiKey - b.api.apiKey);
  }

  async dispatch(frame: Buffer, session: Session): Promise<DispatchResult> {
    const { connectionId } = session;
    const clientHost = `/${session.clientAddress}`;
    const r = new Reader(frame);
    let prefix;
    try {
      prefix = readHeaderPrefix(r);
    } catch (e) {
      return { kind: 'close', reason: `unreadable request header: ${(e as Error).message}` };
    }
    const { apiKey, apiVersion, correlationId } = prefix;
    const handler = this.byKey.get(apiKey);
    const supported = handler && apiVersion >= handler.minVersion && apiVersion <= handler.maxVersion;

    if (!supported) {
      // KIP-511: an ApiVersions request we cannot parse is answered in v0 with UNSUPPORTED_VERSION and our ranges.
      if (apiKey === API_VERSIONS_KEY && handler) {
        const chunks = framed((w) => {
          writeResponseHeader(w, correlationId, 0);
          encode(handler.api.response, 0, { errorCode: ErrorCode.UNSUPPORTED_VERSION, apiKeys: this.apiRanges() }, w);
        });
        return { kind: 'response', chunks, apiKey };
      }
      const body = handler && inDefinition(handler.api, apiVersion)
        ? errorBody(handler.api, apiVersion, ErrorCode.UNSUPPORTED_VERSION)
        : null;
      const chunks = framed((w) => {
        writeResponseHeader(w, correlationId, body ? responseHeaderVersion(handler!.api, apiVersion) : 0);
        if (body) encode(handler!.api.response, apiVersion, body, w);
        else w.int16(ErrorCode.UNSUPPORTED_VERSION);
      });
      this.broker.logger.warn('unsupported request', { apiKey, apiVersion, connectionId });
      return { kind: 'response', chunks, apiKey };
    }

    const api = handler.api;
    const started = this.observer ? performance.now() : 0;
    let req: Record<string, any>;
    let ctx: RequestContext;
    try {
      const clientId = readHeaderRest(r, isFlexible(api.request, apiVersion) ? 2 : 1);
      ctx = { apiKey, apiVersion, correlationId, clientId, connectionId, clientHost, session };
      req = decode(api.request, apiVersion, r);
    } catch (e) {
      if (e instanceof ProtocolError) return { kind: 'close', reason: `${api.name} v${apiVersion}: ${e.message}` };
      throw e;
    }

    let res: Record<string, any> | null;
    try {
      res = await handler.handle(req, ctx, this.broker);
    } catch (e) {
      const code = e instanceof KafkaError ? e.code : e instanceof RunnelError && e.kind === 'STORAGE_UNAVAILABLE' ? ErrorCode.KAFKA_STORAGE_ERROR : ErrorCode.UNKNOWN_SERVER_ERROR;
      if (code === ErrorCode.UNKNOWN_SERVER_ERROR) this.broker.logger.error('handler failed', { api: api.name, err: e instanceof Error ? e.stack : String(e) });
      res = errorBody(api, apiVersion, code);
    }
    if (res === null) {
      this.observer?.observe(api, req, null, (performance.now() - started) / 1000);
      return { kind: 'none' };
    }
    const body = res;
    const chunks = framed((w) => {
      writeResponseHeader(w, correlationId, apiKey === API_VERSIONS_KEY ? 0 : responseHeaderVersion(api, apiVersion));
      encode(api.response, apiVersion, body, w);
    });
    this.observer?.observe(api, req, body, (performance.now() - started) / 1000);
    return { kind: 'response', chunks, apiKey };
  }

  apiRanges(): Array<{ apiKey: number; minVersion: number; maxVersion: number }> {
    return this.handlers().map((h) => ({ apiKey: h.api.apiKey, minVersion: h.minVersion, maxVersion: h.maxVersion }));
  }
}

/** Encodes a size-prefixed frame; the size sits in the first chunk. */
function framed(build: (w: Writer) => void): Buffer[] {
  const w = new Writer(1024);
  w.int32(0);
  build(w);
  const chunks = w.toChunks();
  chunks[0]!.writeInt32BE(w.length - 4, 0);
  return chunks;
}

function inDefinition(api: ApiDef, v: number): boolean {
  const r = parseVersions(api.response.validVersions);
  return v >= r.min && v <= r.max;
}

function responseHeaderVersion(api: ApiDef, v: number): number {
  return isFlexible(api.response, v) ? 1 : 0;
}

/** A response with every top-level ErrorCode set to `code` and every list empty. */
export function errorBody(api: ApiDef, _version: number, code: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const visit = (fields: FieldDef[], o: Record<string, unknown>): void => {
    for (const f of fields) {
      if (f.name === 'ErrorCode') o[camel(f.name)] = code;
    }
  };
  visit(api.response.fields, out);
  return out;
}
