// The page shell of every console page: title, navigation, stylesheet.
import { html, type Html } from './html.js';

export type Section = 'cluster' | 'topics' | 'groups' | 'messages';

const NAV: Array<[Section, string, string]> = [
  ['cluster', 'Cluster', '/console'],
  ['topics', 'Topics', '/console/topics'],
  ['groups', 'Consumer groups', '/console/groups'],
  ['messages', 'Messages', '/console/messages'],
];

export function page(section: Section | null, title: string, body: Html): string {
  return `<!doctype html>\n${html`<html lang="en"><head><meta charset="utf-8"><title>${title} · Runnel</title>
<link rel="stylesheet" href="/console/style.css"></head>
<body><header><strong>Runnel</strong>${NAV.map(([s, label, href]) => html`<a href="${href}"${s === section ? html` class="on"` : ''}>${label}</a>`)}</header>
<main><h1>${title}</h1>${body}</main></body></html>`.text}\n`;
}

/** A table with a header row; `right` marks numeric columns by index. */
export function table(header: string[], rows: Html[][], right: ReadonlySet<number> = new Set()): Html {
  return html`<table><thead><tr>${header.map((h) => html`<th>${h}</th>`)}</tr></thead><tbody>${rows.map((r) => html`<tr>${r.map((c, i) => (right.has(i) ? html`<td class="num">${c}</td>` : html`<td>${c}</td>`))}</tr>`)}</tbody></table>`;
}

/** A cell's content from plain text (escaped). */
export const cell = (v: string | number | null): Html => html`${v === null ? '-' : v}`;
