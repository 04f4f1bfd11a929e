// Kafka's JAAS configuration text, as in `sasl.jaas.config` and
// `listener.name.<listener>.plain.sasl.jaas.config`:
//   org.apache.kafka.common.security.plain.PlainLoginModule required
//     username="admin" password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";
// The PLAIN server's static users are the `user_<name>="<password>"` options.
import { RunnelError } from '../../../../common/errors.js';

export interface JaasEntry {
  loginModule: string;
  flag: string;
  options: Map<string, string>;
}

const PLAIN_LOGIN_MODULE = 'org.apache.kafka.common.security.plain.PlainLoginModule';
const FLAGS = new Set(['required', 'requisite', 'sufficient', 'optional']);

/** Parses `<LoginModule> <flag> key=value ...;` entries (values quoted with "..." may hold spaces, `\"` and `\\`). */
export function parseJaasConfig(text: string): JaasEntry[] {
  const entries: JaasEntry[] = [];
  let i = 0;
  const n = text.length;
  const skipWs = (): void => { while (i < n && /\s/.test(text[i]!)) i++; };
  const word = (): string => {
    const start = i;
    while (i < n && /[^\s=;"]/.test(text[i]!)) i++;
    return text.slice(start, i);
  };
  const bad = (why: string): RunnelError => new RunnelError('CONFIG_INVALID', `sasl.jaas.config: ${why} at character ${i}`);
  for (;;) {
    skipWs();
    if (i >= n) break;
    const loginModule = word();
    if (!loginModule) throw bad('expected a login module class name');
    skipWs();
    const flag = word().toLowerCase();
    if (!FLAGS.has(flag)) throw bad(`expected a control flag (required, requisite, sufficient, optional), got '${flag}'`);
    const options = new Map<string, string>();
    for (;;) {
      skipWs();
      if (i >= n) throw bad("missing ';' at the end of the entry");
      if (text[i] === ';') { i++; break; }
      const key = word();
      skipWs();
      if (!key || text[i] !== '=') throw bad(`expected key=value, got '${key}'`);
      i++;
      skipWs();
      let value = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (i >= n) throw bad('unterminated quoted value');
          const c = text[i++]!;
          if (c === '"') break;
          if (c === '\\' && i < n) value += text[i++]!;
          else value += c;
        }
      } else {
        value = word();
      }
      options.set(key, value);
    }
    entries.push({ loginModule, flag, options });
  }
  return entries;
}

/** The PLAIN server's static users (`user_<name>="<password>"`) of a JAAS config; empty when it names no PlainLoginModule. */
export function plainUsers(jaasConfig: string): Map<string, string> {
  const users = new Map<string, string>();
  for (const e of parseJaasConfig(jaasConfig)) {
    if (e.loginModule !== PLAIN_LOGIN_MODULE) continue;
    for (const [k, v] of e.options) if (k.startsWith('user_') && k.length > 5) users.set(k.slice(5), v);
  }
  return users;
}
