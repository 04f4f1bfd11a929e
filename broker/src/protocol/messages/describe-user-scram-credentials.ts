import { f, message, s, type ApiDef } from '../schema.js';

export const DescribeUserScramCredentials = {
  apiKey: 50,
  name: 'DescribeUserScramCredentials',
  request: message('DescribeUserScramCredentialsRequest', '0', '0+', [
    s('Users', '[]UserName', '0+', [
      f('Name', 'string', '0+'),
    ], { nullable: '0+' }),
  ]),
  response: message('DescribeUserScramCredentialsResponse', '0', '0+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    f('ErrorCode', 'int16', '0+'),
    f('ErrorMessage', 'string', '0+', { nullable: '0+' }),
    s('Results', '[]DescribeUserScramCredentialsResult', '0+', [
      f('User', 'string', '0+'),
      f('ErrorCode', 'int16', '0+'),
      f('ErrorMessage', 'string', '0+', { nullable: '0+' }),
      s('CredentialInfos', '[]CredentialInfo', '0+', [
        f('Mechanism', 'int8', '0+'),
        f('Iterations', 'int32', '0+'),
      ]),
    ]),
  ]),
} satisfies ApiDef;
