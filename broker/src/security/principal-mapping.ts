// Kafka's ssl.principal.mapping.rules: how a client certificate's subject
// becomes a principal name. Kafka's default principal for a TLS client is
// "User:" + the subject DN in RFC 2253 form ("CN=alice,OU=eng,O=org,C=US").
//
// Rules (Kafka's SslPrincipalMapper syntax), tried in order, the first that
// applies wins; no rule applying is an authentication failure:
//   RULE:<regex>/<replacement>/[L|U]   the regex must match the whole DN;
//                                      $1.. in the replacement name its groups;
//                                      L / U lower- / upper-case the result
//   DEFAULT                            the DN unchanged
import { RunnelError } from '../../../common/errors.js';

interface Rule { pattern: RegExp | null; replacement: string; caseMode: '' | 'L' | 'U' }

/** Kafka's rule-list pattern: RULE:pattern/replacement/[LU] with `\` escaping `/`, or DEFAULT, comma separated. */
const RULE = /\s*(?:RULE:((?:\\.|[^\\/])*)\/((?:\\.|[^\\/])*)\/([LU]?)|(DEFAULT))\s*(?:,|$)/y;

/** Parses a rule list; throws RN3001 naming the part that is not a rule. */
export function parseMappingRules(raw: string): Rule[] {
  const text = raw.trim();
  if (text === '') return [{ pattern: null, replacement: '', caseMode: '' }];
  const rules: Rule[] = [];
  RULE.lastIndex = 0;
  while (RULE.lastIndex < text.length) {
    const at = RULE.lastIndex;
    const m = RULE.exec(text);
    if (!m || m[0] === '') {
      throw new RunnelError('CONFIG_INVALID', `ssl.principal.mapping.rules: "${text.slice(at)}" is not RULE:pattern/replacement/[LU] or DEFAULT`);
    }
    if (m[4]) {
      rules.push({ pattern: null, replacement: '', caseMode: '' });
      continue;
    }
    let pattern: RegExp;
    try {
      pattern = new RegExp(m[1]!);
    } catch (e) {
      throw new RunnelError('CONFIG_INVALID', `ssl.principal.mapping.rules: ${m[1]} is not a regular expression (${e instanceof Error ? e.message : String(e)})`);
    }
    rules.push({ pattern, replacement: m[2]!, caseMode: m[3] as Rule['caseMode'] });
  }
  return rules;
}

/** Java's replacement syntax: $n names group n (kept literally past the last group, as Kafka escapes it), `\x` is x literally. */
function expand(replacement: string, groups: ReadonlyArray<string | undefined>): string {
  let out = '';
  for (let i = 0; i < replacement.length; i++) {
    const c = replacement[i]!;
    if (c === '\\' && i + 1 < replacement.length) out += replacement[++i];
    else if (c === '$' && /\d/.test(replacement[i + 1] ?? '') && Number(replacement[i + 1]) < groups.length) {
      let j = i + 1;
      let n = Number(replacement[j]);
      // Java takes further digits while they still name an existing group.
      while (j + 1 < replacement.length && /\d/.test(replacement[j + 1]!) && n * 10 + Number(replacement[j + 1]) < groups.length) n = n * 10 + Number(replacement[++j]);
      out += groups[n] ?? '';
      i = j;
    } else out += c;
  }
  return out;
}

export class PrincipalMapper {
  private readonly rules: Rule[];

  constructor(readonly raw: string) {
    this.rules = parseMappingRules(raw);
  }

  /** The principal name of a subject DN (RFC 2253), or null when no rule applies (Kafka fails the authentication). */
  map(dn: string): string | null {
    for (const r of this.rules) {
      if (!r.pattern) return dn;
      const whole = new RegExp(`^(?:${r.pattern.source})$`, r.pattern.flags);
      if (!whole.test(dn)) continue;
      // Kafka: distinguishedName.replaceAll(pattern, replacement) once the pattern matches the whole DN.
      const global = new RegExp(r.pattern.source, 'g');
      const name = dn.replace(global, (...args: unknown[]) => {
        // (match, group 1..n, offset, whole string)
        return expand(r.replacement, args.slice(0, -2) as Array<string | undefined>);
      });
      return r.caseMode === 'L' ? name.toLowerCase() : r.caseMode === 'U' ? name.toUpperCase() : name;
    }
    return null;
  }
}

/**
 * RFC 2253 form of Node's X509Certificate.subject ("C=US\nO=org\nCN=alice",
 * one RDN a line, most significant first, values already escaped RFC 2253
 * style): the RDNs in reverse order, comma separated, as Java's
 * X500Principal.getName() writes them; multi-valued RDNs ("A=x + B=y") joined by "+".
 */
export function rfc2253(nodeSubject: string): string {
  return nodeSubject.split('\n').filter(Boolean).reverse().map((rdn) => rdn.split(' + ').join('+')).join(',');
}
