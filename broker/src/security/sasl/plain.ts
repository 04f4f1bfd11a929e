// SASL/PLAIN server (RFC 4616) as Kafka's PlainSaslServer: one message
// `[authzid] NUL authcid NUL passwd`, the authzid empty or the user itself.
// Its failure messages are Kafka's and go to the client as they are.
import { SaslAuthenticationFailure, type SaslMechanismServer } from './mechanism.js';

export const PLAIN_INVALID_CREDENTIALS = 'Authentication failed: Invalid username or password';

/** Checks a user's password; must compare in constant time. */
export type PlainPasswordCheck = (user: string, password: string) => Promise<boolean>;

export interface PlainMessage { authzid: string; username: string; password: string }

/** Parses the client's message; throws SaslAuthenticationFailure with Kafka's text when malformed. */
export function parsePlainMessage(token: Buffer): PlainMessage {
  const parts = token.toString('utf8').split('\u0000');
  if (parts.length !== 3) throw new SaslAuthenticationFailure(`Invalid SASL/PLAIN response: expected 3 tokens, got ${parts.length}`);
  const [authzid, username, password] = parts as [string, string, string];
  if (username === '') throw new SaslAuthenticationFailure('Authentication failed: username not specified');
  if (password === '') throw new SaslAuthenticationFailure('Authentication failed: password not specified');
  if (authzid !== '' && authzid !== username) throw new SaslAuthenticationFailure('Authentication failed: Client requested an authorization id that is different from username');
  return { authzid, username, password };
}

export class PlainServer implements SaslMechanismServer {
  readonly mechanism = 'PLAIN';
  complete = false;
  username: string | null = null;
  private used = false;

  constructor(private readonly check: PlainPasswordCheck) {}

  async evaluate(token: Buffer): Promise<Buffer> {
    if (this.used) throw new SaslAuthenticationFailure('Authentication failed: SASL/PLAIN takes one message');
    this.used = true;
    const msg = parsePlainMessage(token);
    if (!(await this.check(msg.username, msg.password))) throw new SaslAuthenticationFailure(PLAIN_INVALID_CREDENTIALS);
    this.username = msg.username;
    this.complete = true;
    return Buffer.alloc(0);
  }
}
