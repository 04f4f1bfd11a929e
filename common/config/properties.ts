// Settings files in Java's .properties syntax (Kafka's server.properties, and
// the systemd EnvironmentFile examples in deploy/): `key=value` or `key: value`
// lines, `#` and `!` comments, a trailing odd backslash continues the line.
// Values are kept as text; common/config/values.ts gives their syntax.
export function parseProperties(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  // Java properties: a line ending in an odd number of backslashes continues on the next (leading blanks dropped).
  const lines: string[] = [];
  let cont: string | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line: string = cont === null ? raw : cont + raw.replace(/^\s+/, '');
    const trailing = /\\+$/.exec(line)?.[0].length ?? 0;
    if (trailing % 2 === 1) cont = line.slice(0, -1);
    else { lines.push(line); cont = null; }
  }
  if (cont !== null) lines.push(cont);
  for (const line of lines) {
    const t = line.trim();
    if (!t || t.startsWith('#') || t.startsWith('!')) continue;
    const i = t.search(/[=:]/);
    if (i < 0) continue;
    out[t.slice(0, i).trim()] = t.slice(i + 1).trim();
  }
  return out;
}
