// Sans-IO request dispatch: one frame in, one encoded response (or none) out.
import { decode, encode, isFlexible } from './protocol/codec.js';
import { readHeaderPrefix, readHeaderRest, writeResponseHeader } from './protocol/headers.js';
import { Reader } from './protocol/reader.js';
import { Writer } from './protocol/writer.js';
import { parseVersions } from './protocol/versions.js';
import type { ApiDef, FieldDef } from './protocol/schema.js';
import { ErrorCode, ProtocolError, kafkaCodeOf } from '../../common/errors.js';
import type { BrokerServices, Handler, RequestContext } from './handlers/support/types.js';
import { camel } from './protocol/codec.js';
import { advertisedRange, type ApiRange } from './handlers/api-versions.js';
import type { Session } from './security/session.js';
import { requestThrottleMs } from './quotas/request-throttle.js';

import { SaslAuthenticator } from './security/sasl/authenticator.js';
import { saslSettingsFromConfig } from './config/sasl.js';
import type { SaslSettings } from './security/sasl/settings.js';
import { jwksSource, type VerificationKeySource } from './security/sasl/jwks.js';
import type { RequestObserver } from './http/request-metrics.js';

export type DispatchResult =
  /**
   * closeAfter: the connection closes once this response is written (failed SASL authentication).
   * throttleMs: a quota throttles the client: nothing more is read from it for this long (KIP-219).
   */
  | { kind: 'response'; chunks: Buffer[]; apiKey: number; closeAfter?: boolean; throttleMs?: number }
  | { kind: 'none'; throttleMs?: number }
  | { kind: 'close'; reason: string };

const API_VERSIONS_KEY = 18;

export class Dispatcher {
  private readonly byKey = new Map<number, Handler>();
  /** SASL settings per listener name, parsed once. */
  private readonly saslByListener = new Map<string, SaslSettings>();
  /** Each OAUTHBEARER listener's JWKS, shared by its connections (one cache, one refresh). */
  private readonly jwksByListener = new Map<string, VerificationKeySource>();

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

  /** The SASL state of a new connection on a SASL_PLAINTEXT or SASL_SSL listener; null on other listeners. */
  saslFor(session: Session): SaslAuthenticator | null {
    if (session.securityProtocol !== 'SASL_PLAINTEXT' && session.securityProtocol !== 'SASL_SSL') return null;
    if (!this.broker.credentials) throw new Error('SASL listener without a credential store');
    const settings = this.saslSettingsOf(session.listenerName);
    let jwks = this.jwksByListener.get(session.listenerName) ?? null;
    if (!jwks && settings.oauthbearer) {
      jwks = jwksSource(settings.oauthbearer.jwksEndpointUrl, settings.oauthbearer.jwksRefreshMs);
      this.jwksByListener.set(session.listenerName, jwks);
    }
    return new SaslAuthenticator(session, settings, this.broker.credentials, Date.now, jwks);
  }

  /** Parses (once) and returns a listener's SASL settings; throws CONFIG_INVALID on bad settings. */
  saslSettingsOf(listenerName: string): SaslSettings {
    let s = this.saslByListener.get(listenerName);
    if (!s) {
      s = saslSettingsFromConfig(this.broker.config, listenerName);
      this.saslByListener.set(listenerName, s);
    }
    return s;
  }

  handlers(): Handler[] {
    return [...this.byKey.values()].sort((a, b) => a.api.apiKey - b.api.apiKey);
  }

  /**
   * `sasl`: the connection's SASL state on a SASL listener. It decides, before
   * anything is decoded, whether the request may pass (Kafka closes the
   * connection otherwise), and after SaslHandshake v0 the frames are raw tokens.
   */
  async dispatch(frame: Buffer, session: Session, sasl?: SaslAuthenticator | null): Promise<DispatchResult> {
    if (sasl?.expectsRawToken) return rawSaslToken(sasl, frame);
    const r = new Reader(frame);
    let prefix;
    try {
      prefix = readHeaderPrefix(r);
    } catch (e) {
      return { kind: 'close', reason: `unreadable request header: ${(e as Error).message}` };
    }
    const { apiKey, apiVersion, correlationId } = prefix;
    const refused = sasl ? sasl.admit(apiKey) : null;
    if (refused) return { kind: 'close', reason: refused };
    const handler = this.byKey.get(apiKey);
    const supported = handler && apiVersion >= handler.minVersion && apiVersion <= handler.maxVersion;

    if (handler?.advertisedMinVersion !== undefined && apiVersion >= handler.advertisedMinVersion && apiVersion < handler.minVersion) {
      // Advertised but not handled (Produce v0-v2, KAFKA-18659): Kafka 4's
      // network thread throws UnsupportedVersionException while parsing the
      // header and closes the connection without a response.
      return { kind: 'close', reason: `${handler.api.name} v${apiVersion} is advertised for old clients' version checks but not supported` };
    }
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
      this.broker.logger.warn('unsupported request', { apiKey, apiVersion, connectionId: session.connectionId });
      return { kind: 'response', chunks, apiKey };
    }

    const api = handler.api;
    let req: Record<string, unknown>;
    let ctx: RequestContext;
    const started = performance.now();
    try {
      const clientId = readHeaderRest(r, isFlexible(api.request, apiVersion) ? 2 : 1);
      ctx = { apiKey, apiVersion, correlationId, clientId, session, sasl: sasl ?? undefined };
      req = decode(api.request, apiVersion, r);
    } catch (e) {
      if (e instanceof ProtocolError) return { kind: 'close', reason: `${api.name} v${apiVersion}: ${e.message}` };
      throw e;
    }

    let res: Record<string, unknown> | null;
    // Request time for request_percentage: decoding plus the handler's synchronous
    // part, the thread time a request can be charged with here. Its waits (Redis,
    // a rebalance, a long poll) occupy no thread and are not counted, as in Kafka.
    let threadMs = 0;
    try {
      const pending = handler.handle(req, ctx, this.broker);
      threadMs = performance.now() - started;
      res = await pending;
    } catch (e) {
      const code = kafkaCodeOf(e) ?? ErrorCode.UNKNOWN_SERVER_ERROR;
      if (code === ErrorCode.UNKNOWN_SERVER_ERROR) this.broker.logger.error('handler failed', { api: api.name, err: e instanceof Error ? e.stack : String(e) });
      res = errorBody(api, apiVersion, code);
    }
    // Quotas (KIP-219): the answer goes out at once with the throttle time, and the connection then waits it out.
    const quotas = this.broker.quotas?.manager;
    const throttle = quotas ? requestThrottleMs(quotas, apiKey, session, ctx.clientId, frame.length, threadMs, Date.now()) : 0;
    if (res === null) {
      this.observer?.observe(api, req, null, (performance.now() - started) / 1000);
      return { kind: 'none', throttleMs: throttle };
    }
    if (throttle > 0 && typeof res.throttleTimeMs === 'number') res.throttleTimeMs = Math.max(res.throttleTimeMs, throttle);
    const body = res;
    const chunks = framed((w) => {
      writeResponseHeader(w, correlationId, apiKey === API_VERSIONS_KEY ? 0 : responseHeaderVersion(api, apiVersion));
      encode(api.response, apiVersion, body, w);
    });
    this.observer?.observe(api, req, body, (performance.now() - started) / 1000);
    const throttleMs = Math.max(throttle, typeof body.throttleTimeMs === 'number' ? body.throttleTimeMs : 0);
    return sasl?.closeAfterResponse ? { kind: 'response', chunks, apiKey, closeAfter: true } : { kind: 'response', chunks, apiKey, throttleMs };
  }

  apiRanges(): ApiRange[] {
    return this.handlers().map(advertisedRange);
  }
}

/** One raw SASL token (after SaslHandshake v0): answered as a size-prefixed token; a failure closes the connection. */
async function rawSaslToken(sasl: SaslAuthenticator, token: Buffer): Promise<DispatchResult> {
  const out = await sasl.rawToken(token);
  if (out === null) return { kind: 'close', reason: 'SASL authentication failed (raw tokens after SaslHandshake v0)' };
  const size = Buffer.alloc(4);
  size.writeInt32BE(out.length, 0);
  return { kind: 'response', chunks: [size, out], apiKey: -1 };
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
  const visit = (fields: readonly FieldDef[], o: Record<string, unknown>): void => {
    for (const f of fields) {
      if (f.name === 'ErrorCode') o[camel(f.name)] = code;
    }
  };
  visit(api.response.fields, out);
  return out;
}
