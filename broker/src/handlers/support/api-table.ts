import type { Handler } from './types.js';

/** The Markdown table of supported APIs that docs/compatibility.md carries (checked by a test). */
export function apiTable(handlers: Handler[]): string {
  const rows = [...handlers].sort((a, b) => a.api.apiKey - b.api.apiKey).map((h) => `| ${h.api.name} | ${h.api.apiKey} | ${h.minVersion}-${h.maxVersion} |`);
  return ['| API | key | versions |', '|---|---|---|', ...rows, ''].join('\n');
}
