// Where requests meet the quotas: Produce is charged its request bytes, every
// request but the exempt ones its thread time (decoding and the handler's
// synchronous part; see dispatch.ts). Fetch bytes are charged by the fetch
// handler itself, before it commits to an answer.
import type { QuotaManager } from './quota-manager.js';
import type { Session } from '../security/session.js';

const PRODUCE = 0;
/** Not subject to the request quota (Kafka exempts its handshakes and broker-to-broker requests). */
const EXEMPT = new Set([17 /* SaslHandshake */, 18 /* ApiVersions */, 27 /* WriteTxnMarkers */, 36 /* SaslAuthenticate */]);

/** The principal's name as quotas key it ("alice" for User:alice). */
export function quotaUser(session: Session): string {
  const p = session.principal;
  return p.slice(p.indexOf(':') + 1);
}

/** The throttle time for a handled request (0: none). */
export function requestThrottleMs(q: QuotaManager, apiKey: number, session: Session, clientId: string | null, requestBytes: number, handlingMs: number, now: number): number {
  if (!q.enabled || EXEMPT.has(apiKey)) return 0;
  const user = quotaUser(session);
  const client = clientId ?? '';
  let t = 0;
  if (apiKey === PRODUCE) t = q.recordProduce(user, client, requestBytes, now);
  t = Math.max(t, q.recordRequestTime(user, client, handlingMs, now));
  return t;
}
