// SASL settings of a listener, from Kafka's keys: sasl.enabled.mechanisms,
// listener.name.<l>.sasl.enabled.mechanisms, sasl.jaas.config,
// listener.name.<l>.plain.sasl.jaas.config, connections.max.reauth.ms,
// sasl.server.max.receive.size; the OAUTHBEARER keys: oauthbearer-settings.ts.
import { RunnelError } from '../../../../common/errors.js';
import { plainUsers } from './jaas.js';
import { SCRAM_MECHANISMS } from './credentials.js';
import { OAUTHBEARER } from './oauthbearer.js';
import { oauthBearerSettings, type OAuthBearerKey, type OAuthBearerSettings } from './oauthbearer-settings.js';

export const SUPPORTED_MECHANISMS: readonly string[] = ['PLAIN', ...SCRAM_MECHANISMS.map((m) => m.name), OAUTHBEARER];

/** Runnel's default for sasl.enabled.mechanisms (Kafka's GSSAPI is not supported). */
export const DEFAULT_ENABLED_MECHANISMS = 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512';

export interface SaslSettings {
  enabledMechanisms: readonly string[];
  /** connections.max.reauth.ms; 0: sessions never expire. */
  reauthMs: number;
  /** sasl.server.max.receive.size: the largest frame before authentication. */
  maxReceiveSize: number;
  /** Static PLAIN users from the JAAS config: user -> password. */
  plainUsers: ReadonlyMap<string, string>;
  /** connection.failed.authentication.delay.ms: how long the answer to a failed authentication is held back. */
  failedAuthenticationDelayMs: number;
  /** The OAUTHBEARER settings; null when the listener does not enable OAUTHBEARER. */
  oauthbearer: OAuthBearerSettings | null;
}

export interface SaslConfigInput {
  listenerName: string;
  saslEnabledMechanisms: string;
  saslJaasConfig: string;
  connectionsMaxReauthMs: number;
  saslServerMaxReceiveSize: number;
  connectionFailedAuthenticationDelayMs: number;
  /** listener.name.<listener>.<...> keys given, by their full name. */
  listenerOverrides: Readonly<Record<string, string>>;
  /** The sasl.oauthbearer.* settings, defaults included. */
  oauthbearer: Readonly<Record<OAuthBearerKey, string>>;
}

export function parseMechanismList(key: string, raw: string): string[] {
  const list = raw.split(',').map((s) => s.trim()).filter(Boolean);
  for (const m of list) {
    if (!SUPPORTED_MECHANISMS.includes(m)) throw new RunnelError('CONFIG_INVALID', `${key}: SASL mechanism ${m} is not supported (supported: ${SUPPORTED_MECHANISMS.join(', ')})`);
  }
  if (list.length === 0) throw new RunnelError('CONFIG_INVALID', `${key}: no SASL mechanism enabled`);
  return list;
}

/** The settings of one SASL listener; listener.name.<l>.* keys override the global ones, as in Kafka. */
export function saslSettings(c: SaslConfigInput): SaslSettings {
  const prefix = `listener.name.${c.listenerName.toLowerCase()}.`;
  const mechKey = `${prefix}sasl.enabled.mechanisms`;
  const enabledMechanisms = c.listenerOverrides[mechKey] !== undefined
    ? parseMechanismList(mechKey, c.listenerOverrides[mechKey]!)
    : parseMechanismList('sasl.enabled.mechanisms', c.saslEnabledMechanisms);
  const jaas = c.listenerOverrides[`${prefix}plain.sasl.jaas.config`] ?? c.saslJaasConfig;
  return {
    enabledMechanisms,
    reauthMs: Math.max(0, c.connectionsMaxReauthMs),
    maxReceiveSize: c.saslServerMaxReceiveSize,
    plainUsers: jaas ? plainUsers(jaas) : new Map(),
    failedAuthenticationDelayMs: Math.max(0, c.connectionFailedAuthenticationDelayMs),
    oauthbearer: enabledMechanisms.includes(OAUTHBEARER) ? oauthBearerSettings(c.listenerName, c.oauthbearer, c.listenerOverrides) : null,
  };
}
