// The console's data (http/console/data.ts) from Redis: the same read-only
// status reads as `runnel status` (status-report.ts, which owns the keys) and
// the domain LogStore.
import type { LogStore } from '../storage/log-store.js';
import type { RedisLogStore } from './redis-log-store.js';
import type { RedisGroupStore } from './redis-group-store.js';
import { brokerStatus, groupStatus, lakeTables, topicStatus } from './status-report.js';
import { lastRecords } from '../http/console/records.js';
import type { ConsoleData } from '../http/console/data.js';

export interface ConsoleSources {
  store: RedisLogStore;
  groups: RedisGroupStore;
  /** The live state of a group this broker coordinates and has loaded (e.g. PreparingRebalance), else undefined. */
  liveGroupState?: (groupId: string) => string | undefined;
}

export function consoleData(src: ConsoleSources): ConsoleData {
  const log: LogStore = src.store;
  return {
    async cluster() {
      const time = Date.now();
      const [brokers, topics] = await Promise.all([brokerStatus(src.store, time), topicStatus(src.store)]);
      return { time, brokers, topics };
    },
    async topics() {
      const [topics, lake] = await Promise.all([topicStatus(src.store), lakeTables(src.store)]);
      return Promise.all(topics.map(async (status) => ({
        status,
        bytes: await Promise.all(status.partitions.map((p) => log.sizeBytes({ topic: p.topic, partition: p.partition }))),
        lake: lake.get(status.name) ?? null,
      })));
    },
    async groups() {
      const groups = await groupStatus(src.store, await topicStatus(src.store), src.groups);
      return groups.map((g) => ({ ...g, state: src.liveGroupState?.(g.groupId) ?? g.state }));
    },
    async records(topic, partition, n) {
      const t = (await topicStatus(src.store)).find((x) => x.name === topic);
      const p = t?.partitions[partition];
      if (!p) return null;
      return { partition: p, records: await lastRecords(log, { topic, partition }, p.logEndOffset, p.logStartOffset, n) };
    },
  };
}
