// What the console pages show: plain data, read through the ConsoleData port
// (the Redis implementation, redis/console-data.ts, uses the same read-only
// status reads as `runnel status`). The pages never touch Redis.
import type { BrokerStatus, LakeTable, PartitionStatus, TopicStatus } from '../../storage/status.js';
import type { GroupLag } from '../../groups/group-lag.js';
import type { ConsoleRecord } from './records.js';

export interface TopicView {
  status: TopicStatus;
  /** Bytes the log holds in Redis, per partition. */
  bytes: number[];
  /** The archiver's published Delta table summary; null when the topic was never archived. */
  lake: LakeTable | null;
}

export interface PartitionRecords {
  partition: PartitionStatus;
  records: ConsoleRecord[];
}

export interface ConsoleData {
  cluster(): Promise<{ time: number; brokers: BrokerStatus[]; topics: TopicStatus[] }>;
  topics(): Promise<TopicView[]>;
  groups(): Promise<GroupLag[]>;
  /** The partition and its last `n` records; null when the topic or partition does not exist. */
  records(topic: string, partition: number, n: number): Promise<PartitionRecords | null>;
}
