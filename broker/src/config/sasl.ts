// The SASL settings of one listener, read from the broker settings: the
// adapter between the config room and the SASL module, which owns the
// SaslSettings type and the rules (security/sasl/settings.ts).
import type { BrokerConfig } from './config.js';
import { saslSettings, type SaslSettings } from '../security/sasl/settings.js';
import { OAUTHBEARER_KEYS, type OAuthBearerKey } from '../security/sasl/oauthbearer-settings.js';

/** A listener's SASL settings from the broker settings. */
export function saslSettingsFromConfig(c: BrokerConfig, listenerName: string): SaslSettings {
  return saslSettings({
    listenerName,
    saslEnabledMechanisms: c.saslEnabledMechanisms,
    saslJaasConfig: c.saslJaasConfig,
    connectionsMaxReauthMs: c.connectionsMaxReauthMs,
    saslServerMaxReceiveSize: c.saslServerMaxReceiveSize,
    connectionFailedAuthenticationDelayMs: c.connectionFailedAuthenticationDelayMs,
    listenerOverrides: c.listenerOverrides ?? {},
    oauthbearer: Object.fromEntries(OAUTHBEARER_KEYS.map((k) => [k, String(c.oauthbearer[k])])) as Record<OAuthBearerKey, string>,
  });
}
