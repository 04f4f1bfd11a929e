// The TLS settings of one listener, owned by the TLS context that consumes
// them (tls-context.ts); the config room (config/listeners.ts) reads them
// from Kafka's ssl.* keys.
export type ClientAuth = 'none' | 'requested' | 'required';

/** One listener's TLS settings (Kafka's names in comments). PEM only. */
export interface SslSettings {
  /** ssl.keystore.location: a PEM file holding the private key and the certificate chain. */
  keystoreLocation: string;
  /** ssl.keystore.certificate.chain / ssl.keystore.key: inline PEM (used when no keystore file is named). */
  certificateChain: string;
  key: string;
  /** ssl.key.password: decrypts an encrypted private key. */
  keyPassword: string;
  /** ssl.truststore.location or ssl.truststore.certificates (inline PEM): CAs that client certificates must chain to. */
  truststoreLocation: string;
  truststoreCertificates: string;
  clientAuth: ClientAuth;
  /** ssl.enabled.protocols mapped to Node's TLS versions; TLS 1.2 is the minimum whatever is asked. */
  minVersion: 'TLSv1.2' | 'TLSv1.3';
  maxVersion: 'TLSv1.2' | 'TLSv1.3';
  /** ssl.cipher.suites (OpenSSL names), empty: Node's defaults. */
  cipherSuites: string;
  /** ssl.principal.mapping.rules (Kafka's RULE:.../.../[LU] list, DEFAULT). */
  principalMappingRules: string;
}
