// /console/messages?topic=&partition=&n=: the last n records of a partition
// with offset, timestamp, key, value and headers. Text is escaped, JSON
// pretty-printed, other bytes shown as \xNN (format.ts).
import type { PartitionRecords } from '../data.js';
import { formatTime, showBytes } from '../format.js';
import { html, type Html } from '../html.js';
import { cell, page, table } from '../layout.js';

export const DEFAULT_RECORDS = 20;
export const MAX_RECORDS = 500;

function bytes(b: Buffer | null): Html {
  const s = showBytes(b);
  if (s.kind === 'null') return html`<span class="muted">null</span>`;
  return html`<pre class="${s.kind}">${s.text}</pre>`;
}

export function browseForm(topic: string, partition: number | null, n: number): Html {
  return html`<form method="get" action="/console/messages">
<label>topic <input name="topic" value="${topic}" required></label>
<label>partition <input name="partition" type="number" min="0" value="${partition ?? 0}"></label>
<label>records <input name="n" type="number" min="1" max="${MAX_RECORDS}" value="${n}"></label>
<button type="submit">show</button></form>`;
}

export function messagesPage(topic: string, n: number, d: PartitionRecords): string {
  const p = d.partition;
  const rows = d.records.map((r) => [
    cell(r.offset), cell(formatTime(r.timestampMs)), bytes(r.key), bytes(r.value),
    r.headers.length ? html`${r.headers.map((h) => html`<div><b>${h.key}</b>: ${bytes(h.value)}</div>`)}` : cell(null),
  ]);
  return page('messages', `Messages of ${topic} / ${p.partition}`, html`${browseForm(topic, p.partition, n)}
<p>log start ${p.logStartOffset}, high watermark ${p.logEndOffset}; the last ${d.records.length} record(s), oldest first</p>
${d.records.length ? table(['offset', 'timestamp', 'key', 'value', 'headers'], rows, new Set([0])) : html`<p class="muted">no records</p>`}`);
}

export function chooserPage(n: number): string {
  return page('messages', 'Messages', html`${browseForm('', null, n)}<p class="muted">choose a topic and partition</p>`);
}

const TITLES: Record<number, string> = { 400: 'Bad request', 403: 'Forbidden', 404: 'Not found', 500: 'Cannot show the records' };

export function errorPage(status: number, message: string): string {
  return page(null, TITLES[status] ?? 'Error', html`<p class="error" id="error">${message}</p>`);
}
