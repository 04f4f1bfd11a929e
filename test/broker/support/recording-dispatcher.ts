// A stub Dispatcher for server tests: answers every request with an empty
// response carrying its correlation id, and records each request's session.
import type { Dispatcher, DispatchResult } from '../../../broker/src/dispatch.js';
import type { BrokerConfig } from '../../../broker/src/config/config.js';
import type { Session } from '../../../broker/src/security/session.js';

export function recordingDispatcher(config?: BrokerConfig): { dispatcher: Dispatcher; sessions: Session[] } {
  const sessions: Session[] = [];
  const dispatcher = {
    config,
    dispatch: async (frame: Buffer, s: Session): Promise<DispatchResult> => {
      sessions.push(s);
      const b = Buffer.alloc(8);
      b.writeInt32BE(4, 0);
      b.writeInt32BE(frame.readInt32BE(4), 4); // correlation id
      return { kind: 'response', chunks: [b], apiKey: 0 };
    },
    // No SASL state: these tests look at the transport and the session it made.
    saslFor: () => null,
  } as unknown as Dispatcher;
  return { dispatcher, sessions };
}

/** A request frame (ApiVersions v0 header, no body) with `correlationId`. */
export function requestFrame(correlationId: number): Buffer {
  const f = Buffer.alloc(12);
  f.writeInt32BE(8, 0);
  f.writeInt16BE(18, 4);
  f.writeInt32BE(correlationId, 8);
  return f;
}
