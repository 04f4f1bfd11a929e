// How the console shows record bytes, sizes and times. Record keys, values
// and header values are bytes: valid UTF-8 text is shown as text (JSON
// pretty-printed), anything else as escaped bytes; escaping for HTML happens
// later, in html.ts.

export type Shown = { kind: 'null' } | { kind: 'json' | 'text' | 'binary'; text: string };

const REPLACEMENT = '\uFFFD';

/** Control characters other than tab and newline, shown as \xNN. */
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F]/g;

/** Bytes as text where they are UTF-8, else as \xNN escapes (printable ASCII kept). */
export function showBytes(b: Buffer | null): Shown {
  if (b === null) return { kind: 'null' };
  const text = b.toString('utf8');
  if (!text.includes(REPLACEMENT) && !/[\u0000-\u0008\u000E-\u001F]/.test(text)) {
    const trimmed = text.trim();
    if ((trimmed.startsWith('{') || trimmed.startsWith('[')) && trimmed.length > 1) {
      try {
        return { kind: 'json', text: JSON.stringify(JSON.parse(trimmed), null, 2) };
      } catch { /* not JSON: text */ }
    }
    return { kind: 'text', text: text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`) };
  }
  let out = '';
  for (const c of b) out += c >= 0x20 && c < 0x7f && c !== 0x5c ? String.fromCharCode(c) : `\\x${c.toString(16).padStart(2, '0')}`;
  return { kind: 'binary', text: out };
}

/** 1536 -> "1.5 KiB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = -1;
  do { v /= 1024; i++; } while (v >= 1024 && i < units.length - 1);
  return `${v.toFixed(1)} ${units[i]}`;
}

/** ms since the epoch as ISO-8601 UTC; "-" for none (negative, e.g. a record without timestamp). */
export function formatTime(ms: number | null): string {
  return ms === null || ms < 0 || !Number.isFinite(ms) ? '-' : new Date(ms).toISOString();
}
