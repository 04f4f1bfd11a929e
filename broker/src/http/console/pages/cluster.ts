// /console: the brokers (id, address, lease) and which broker leads each partition.
import type { BrokerStatus, TopicStatus } from '../../../storage/status.js';
import { formatTime } from '../format.js';
import { html, q } from '../html.js';
import { cell, page, table } from '../layout.js';

export function clusterPage(d: { time: number; brokers: BrokerStatus[]; topics: TopicStatus[] }): string {
  const led = new Map<number, number>();
  for (const t of d.topics) for (const p of t.partitions) if (p.leader !== null) led.set(p.leader, (led.get(p.leader) ?? 0) + 1);
  const brokers = table(['node id', 'address', 'rack', 'lease', 'lease expires', 'partitions led', 'instance'], d.brokers.map((b) => [
    cell(b.nodeId), cell(`${b.host}:${b.port}`), cell(b.rack), cell(b.live ? 'live' : 'expired'), cell(formatTime(b.expiresAt)), cell(led.get(b.nodeId) ?? 0), cell(b.instance),
  ]), new Set([0, 5]));
  const user = d.topics.filter((t) => !t.name.startsWith('__'));
  const leaders = table(['topic', 'partition', 'leader', 'leader epoch'], user.flatMap((t) => t.partitions.map((p) => [
    html`<a href="/console/topics#t-${q(t.name)}">${t.name}</a>`, cell(p.partition), cell(p.leader === null ? 'none' : p.leader), cell(p.leaderEpoch),
  ])), new Set([1, 2, 3]));
  const live = d.brokers.filter((b) => b.live).length;
  return page('cluster', 'Cluster', html`
<h2>Brokers (${live} live)</h2>${brokers}
<h2>Partition leaders</h2>${user.length ? leaders : html`<p class="muted">no topics</p>`}
<p class="muted">as of ${formatTime(d.time)}</p>`);
}
