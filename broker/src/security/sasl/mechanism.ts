// The server side of one SASL exchange, sans-IO: tokens in, tokens out.

/** Ends the exchange; `message` is what the client is told (SaslAuthenticate's ErrorMessage). */
export class SaslAuthenticationFailure extends Error {}

export interface SaslMechanismServer {
  readonly mechanism: string;
  /** Evaluates the client's next token and answers the server's; throws SaslAuthenticationFailure. */
  evaluate(token: Buffer): Promise<Buffer>;
  /** True once the exchange succeeded. */
  readonly complete: boolean;
  /** The authenticated user name (set once complete). */
  readonly username: string | null;
  /** When the credential expires (ms since the epoch; OAUTHBEARER's token exp): the session ends then at the latest. */
  readonly credentialExpiresAtMs?: number | null;
  /** Why the last credential was refused, for the broker's log only (OAUTHBEARER tells the client just invalid_token). */
  readonly rejection?: string | null;
}
