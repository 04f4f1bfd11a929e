// /console/topics: per topic its partitions (log start, where Redis's part
// starts: later on a tiered topic, whose older records are in the lake; high
// watermark, bytes in Redis, archived watermark) and its lake table as the archiver published it.
import type { TopicView } from '../data.js';
import { formatBytes, formatTime } from '../format.js';
import { html, q, type Html } from '../html.js';
import { cell, page, table } from '../layout.js';

function lake(v: TopicView): Html {
  if (!v.lake) return html`<p>Lake table: <span class="muted">not archived</span></p>`;
  const l = v.lake;
  return html`<p>Lake table <code>${l.table}</code>: Delta version <b>${l.version}</b>, ${l.files} files, ${formatBytes(l.bytes)}, last commit ${formatTime(l.lastCommitMs)}</p>`;
}

function topic(v: TopicView): Html {
  const t = v.status;
  const rows = t.partitions.map((p) => [
    cell(p.partition), cell(p.leader === null ? 'none' : p.leader), cell(p.logStartOffset), cell(p.localLogStartOffset ?? p.logStartOffset), cell(p.logEndOffset), cell(formatBytes(v.bytes[p.partition] ?? 0)),
    cell(p.archivedOffset), cell(p.lakeLagRecords), html`<a href="/console/messages?topic=${q(t.name)}&amp;partition=${p.partition}">last records</a>`,
  ]);
  return html`<section id="t-${t.name}"><h2>${t.name} <span class="muted">(${t.partitions.length} partition${t.partitions.length === 1 ? '' : 's'})</span></h2>
${table(['partition', 'leader', 'log start', 'in Redis from', 'high watermark', 'bytes in Redis', 'archived watermark', 'lake lag', ''], rows, new Set([0, 1, 2, 3, 4, 5, 6, 7]))}${lake(v)}</section>`;
}

export function topicsPage(views: TopicView[], internal: boolean): string {
  const shown = views.filter((v) => internal || !v.status.name.startsWith('__'));
  const hidden = views.length - shown.length;
  return page('topics', 'Topics', html`${shown.length ? shown.map(topic) : html`<p class="muted">no topics</p>`}
${hidden ? html`<p class="muted">${hidden} internal topic(s) hidden: <a href="/console/topics?internal=1">show them</a></p>` : ''}`);
}
