// The part of the console's data a request may see (access.ts): topics the
// principal may not Describe are left out of every list, groups it may not
// Describe are left out, and a group's offsets and total lag count only the
// topics it may Describe (Kafka's OffsetFetch answers the others with
// TOPIC_AUTHORIZATION_FAILED). Members and their assignments come with the
// group, as DescribeGroups returns them to anyone who may Describe it.
import type { BrokerStatus, TopicStatus } from '../../storage/status.js';
import type { GroupLag } from '../../groups/group-lag.js';
import type { ConsoleAccess } from './access.js';
import type { TopicView } from './data.js';

export function visibleCluster(d: { time: number; brokers: BrokerStatus[]; topics: TopicStatus[] }, a: ConsoleAccess): typeof d {
  return { ...d, topics: d.topics.filter((t) => a.describeTopic(t.name)) };
}

export function visibleTopics(views: TopicView[], a: ConsoleAccess): TopicView[] {
  return views.filter((v) => a.describeTopic(v.status.name));
}

export function visibleGroups(groups: GroupLag[], a: ConsoleAccess): GroupLag[] {
  return groups.filter((g) => a.describeGroup(g.groupId)).map((g) => {
    const partitions = g.partitions.filter((p) => a.describeTopic(p.topic));
    return partitions.length === g.partitions.length ? g : { ...g, partitions, totalLag: partitions.reduce((s, p) => s + (p.lag ?? 0), 0) };
  });
}
