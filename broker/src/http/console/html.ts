// Safe HTML building for the web console: every interpolated value is escaped
// unless it is already Html (built by `html` or a page helper), so a topic
// name, key, value or header can never become markup.

/** A fragment of markup known to be safe (escaped or written by the console itself). */
export class Html {
  constructor(readonly text: string) {}
  toString(): string { return this.text; }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for an element body or a quoted attribute value. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

export type Interpolated = Html | string | number | null | undefined | readonly Interpolated[];

function render(v: Interpolated): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Html) return v.text;
  if (Array.isArray(v)) return v.map(render).join('');
  return escapeHtml(String(v));
}

/** Tagged template: literal parts are markup, interpolations are escaped (arrays joined). */
export function html(strings: TemplateStringsArray, ...values: Interpolated[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** A query-string value for a link (`?topic=...`). */
export function q(s: string | number): string {
  return encodeURIComponent(String(s));
}
