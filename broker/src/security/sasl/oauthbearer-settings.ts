// SASL/OAUTHBEARER settings of a listener, Kafka's names (KIP-768 broker
// side). Each key may be given for all listeners (`sasl.oauthbearer.X`), for
// one listener (`listener.name.<l>.sasl.oauthbearer.X`) or for one listener's
// OAUTHBEARER mechanism (`listener.name.<l>.oauthbearer.sasl.oauthbearer.X`),
// the most specific winning, as Kafka's ConfigurationUtils reads them.
// Like Kafka 4.x's broker validator, the issuer and the audience must be
// configured unless explicitly allowed to go unchecked; unlike Kafka, there
// is no unsecured (unsigned token) validator: the JWKS endpoint is required.
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseBoolean, parseInteger } from '../../../../common/config/values.js';
import { RunnelError } from '../../../../common/errors.js';
import type { JwtValidation } from './jwt.js';

/** The OAUTHBEARER keys read, with Kafka's defaults. */
export const OAUTHBEARER_DEFAULTS = {
  'sasl.oauthbearer.jwks.endpoint.url': '',
  'sasl.oauthbearer.jwks.endpoint.refresh.ms': '3600000',
  'sasl.oauthbearer.expected.issuer': '',
  'sasl.oauthbearer.expected.audience': '',
  'sasl.oauthbearer.sub.claim.name': 'sub',
  'sasl.oauthbearer.scope.claim.name': 'scope',
  'sasl.oauthbearer.clock.skew.seconds': '30',
  'sasl.oauthbearer.allow.unverified.issuer': 'false',
  'sasl.oauthbearer.allow.unverified.audience': 'false',
} as const;

export type OAuthBearerKey = keyof typeof OAUTHBEARER_DEFAULTS;
export const OAUTHBEARER_KEYS = Object.keys(OAUTHBEARER_DEFAULTS) as OAuthBearerKey[];

export interface OAuthBearerSettings extends JwtValidation {
  jwksEndpointUrl: string;
  jwksRefreshMs: number;
}

const bad = (key: string, msg: string): RunnelError => new RunnelError('CONFIG_INVALID', `${key}: ${msg}`);

/**
 * A listener's OAUTHBEARER settings. `global`: the sasl.oauthbearer.* values
 * (defaults included); `overrides`: the listener.name.* keys given.
 */
export function oauthBearerSettings(listenerName: string, global: Readonly<Record<OAuthBearerKey, string>>, overrides: Readonly<Record<string, string>>): OAuthBearerSettings {
  const l = `listener.name.${listenerName.toLowerCase()}.`;
  const get = (k: OAuthBearerKey): [string, string] => {
    for (const full of [`${l}oauthbearer.${k}`, `${l}${k}`]) if (overrides[full] !== undefined) return [full, overrides[full]!.trim()];
    return [k, global[k].trim()];
  };
  const int = (k: OAuthBearerKey, min: number): number => {
    const [key, raw] = get(k);
    const n = parseInteger(raw, min);
    if (n === undefined) throw bad(key, `expected an integer >= ${min}, got '${raw}'`);
    return n;
  };
  const bool = (k: OAuthBearerKey): boolean => {
    const [key, raw] = get(k);
    const b = parseBoolean(raw);
    if (b === undefined) throw bad(key, `expected true or false, got '${raw}'`);
    return b;
  };
  const [urlKey, url] = get('sasl.oauthbearer.jwks.endpoint.url');
  if (url === '') throw bad(urlKey, `required when OAUTHBEARER is enabled on listener ${listenerName} (the JWKS that signs the tokens; unsigned tokens are not accepted)`);
  checkJwksUrl(urlKey, url);
  const [issKey, issuer] = get('sasl.oauthbearer.expected.issuer');
  const [audKey, audRaw] = get('sasl.oauthbearer.expected.audience');
  const audience = audRaw.split(',').map((s) => s.trim()).filter(Boolean);
  if (issuer === '' && !bool('sasl.oauthbearer.allow.unverified.issuer')) {
    throw bad(issKey, 'required so that the token\'s issuer (iss) can be verified; set sasl.oauthbearer.allow.unverified.issuer=true to accept any issuer');
  }
  if (audience.length === 0 && !bool('sasl.oauthbearer.allow.unverified.audience')) {
    throw bad(audKey, 'required so that the token\'s audience (aud) can be verified; set sasl.oauthbearer.allow.unverified.audience=true to accept any audience');
  }
  const [subKey, sub] = get('sasl.oauthbearer.sub.claim.name');
  if (sub === '') throw bad(subKey, 'must not be empty');
  return {
    jwksEndpointUrl: url,
    jwksRefreshMs: int('sasl.oauthbearer.jwks.endpoint.refresh.ms', 1),
    expectedIssuer: issuer === '' ? null : issuer,
    expectedAudience: audience,
    subClaimName: sub,
    scopeClaimName: get('sasl.oauthbearer.scope.claim.name')[1] || 'scope',
    clockSkewSeconds: int('sasl.oauthbearer.clock.skew.seconds', 0),
  };
}

/** Kafka's rules: http, https or file; a file must exist and be a file. */
function checkJwksUrl(key: string, url: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw bad(key, `'${url}' is not a URL (http://, https:// or file://)`);
  }
  if (u.protocol === 'http:' || u.protocol === 'https:') return;
  if (u.protocol !== 'file:') throw bad(key, `'${url}' has protocol ${u.protocol.replace(':', '')}; only http, https and file are supported`);
  const path = fileURLToPath(u);
  let isFile = false;
  try {
    isFile = statSync(path).isFile();
  } catch {
    throw bad(key, `the file ${path} does not exist or cannot be read`);
  }
  if (!isFile) throw bad(key, `${path} is not a file`);
}
