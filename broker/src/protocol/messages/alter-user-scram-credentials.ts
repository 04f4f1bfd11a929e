import { f, message, s, type ApiDef } from '../schema.js';

export const AlterUserScramCredentials = {
  apiKey: 51,
  name: 'AlterUserScramCredentials',
  request: message('AlterUserScramCredentialsRequest', '0', '0+', [
    s('Deletions', '[]ScramCredentialDeletion', '0+', [
      f('Name', 'string', '0+'),
      f('Mechanism', 'int8', '0+'),
    ]),
    s('Upsertions', '[]ScramCredentialUpsertion', '0+', [
      f('Name', 'string', '0+'),
      f('Mechanism', 'int8', '0+'),
      f('Iterations', 'int32', '0+'),
      f('Salt', 'bytes', '0+'),
      f('SaltedPassword', 'bytes', '0+'),
    ]),
  ]),
  response: message('AlterUserScramCredentialsResponse', '0', '0+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    s('Results', '[]AlterUserScramCredentialsResult', '0+', [
      f('User', 'string', '0+'),
      f('ErrorCode', 'int16', '0+'),
      f('ErrorMessage', 'string', '0+', { nullable: '0+' }),
    ]),
  ]),
} satisfies ApiDef;
