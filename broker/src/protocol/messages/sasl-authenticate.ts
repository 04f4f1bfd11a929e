import { f, message, type ApiDef } from '../schema.js';

export const SaslAuthenticate = {
  apiKey: 36,
  name: 'SaslAuthenticate',
  request: message('SaslAuthenticateRequest', '0-2', '2+', [
    f('AuthBytes', 'bytes', '0+'),
  ]),
  response: message('SaslAuthenticateResponse', '0-2', '2+', [
    f('ErrorCode', 'int16', '0+'),
    f('ErrorMessage', 'string', '0+', { nullable: '0+' }),
    f('AuthBytes', 'bytes', '0+'),
    f('SessionLifetimeMs', 'int64', '1+', { default: 0 }),
  ]),
} satisfies ApiDef;
