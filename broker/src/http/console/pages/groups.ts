// /console/groups: every consumer group with its state, members and total lag;
// /console/group?id=...: one group's members (client id, host, assignment) and
// its committed offset and lag per partition.
import type { GroupLag } from '../../../groups/group-lag.js';
import { html, q } from '../html.js';
import { cell, page, table } from '../layout.js';

export function groupsPage(groups: GroupLag[]): string {
  const rows = groups.map((g) => [
    html`<a href="/console/group?id=${q(g.groupId)}">${g.groupId}</a>`, cell(g.state), cell(g.protocolName || '-'), cell(g.members.length), cell(g.partitions.length), cell(g.totalLag),
  ]);
  return page('groups', 'Consumer groups', groups.length ? table(['group', 'state', 'assignor', 'members', 'partitions', 'lag'], rows, new Set([3, 4, 5])) : html`<p class="muted">no consumer groups</p>`);
}

export function groupPage(g: GroupLag): string {
  const members = table(['client id', 'host', 'member id', 'assignment'], g.members.map((m) => [
    cell(m.clientId), cell(m.clientHost), cell(m.memberId), cell(m.assignment === null ? '-' : m.assignment.map((a) => `${a.topic}: ${a.partitions.join(', ')}`).join('; ')),
  ]));
  const partitions = table(['topic', 'partition', 'committed offset', 'log end', 'lag', 'client id'], g.partitions.map((p) => [
    html`<a href="/console/messages?topic=${q(p.topic)}&amp;partition=${p.partition}">${p.topic}</a>`, cell(p.partition), cell(p.committedOffset), cell(p.logEndOffset),
    html`<span class="lag">${p.lag === null ? '-' : p.lag}</span>`, cell(p.clientId),
  ]), new Set([1, 2, 3, 4]));
  return page('groups', `Consumer group ${g.groupId}`, html`
<p>State <b id="state">${g.state}</b>, generation ${g.generation}, protocol ${g.protocolType || '-'} / ${g.protocolName || '-'}, total lag <b id="total-lag">${g.totalLag}</b></p>
<h2>Members (${g.members.length})</h2>${g.members.length ? members : html`<p class="muted">no members</p>`}
<h2>Offsets and lag</h2>${g.partitions.length ? partitions : html`<p class="muted">no committed offsets</p>`}`);
}
