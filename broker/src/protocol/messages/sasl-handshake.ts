import { f, message, type ApiDef } from '../schema.js';

export const SaslHandshake = {
  apiKey: 17,
  name: 'SaslHandshake',
  request: message('SaslHandshakeRequest', '0-1', 'none', [
    f('Mechanism', 'string', '0+'),
  ]),
  response: message('SaslHandshakeResponse', '0-1', 'none', [
    f('ErrorCode', 'int16', '0+'),
    f('Mechanisms', '[]string', '0+'),
  ]),
} satisfies ApiDef;
