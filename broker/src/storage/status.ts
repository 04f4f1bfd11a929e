// The read-only status views of the cluster that `runnel status` and the web
// console show (the Redis implementation: redis/status-report.ts).

export interface BrokerStatus {
  nodeId: number;
  host: string;
  port: number;
  rack: string | null;
  /** The process holding the node id: `<nodeId>:<instance id>`. */
  instance: string | null;
  /** Registration expiry (ms since the epoch). */
  expiresAt: number;
  /** Registration unexpired. */
  live: boolean;
}

export interface PartitionStatus {
  topic: string;
  partition: number;
  /** Node id of the lease holder, null when nobody leads it. */
  leader: number | null;
  /** The lease holder as stored: `<nodeId>:<instance id>`. */
  leaderInstance: string | null;
  leaderEpoch: number;
  /** Log end offset (`next` in :meta): the offset of the next record. */
  logEndOffset: number;
  /** Kafka's log start offset: on a tiered topic the start of the lake's part. */
  logStartOffset: number;
  /** Tiered topics: the start of what Redis holds when the lake holds offsets below it; absent otherwise. */
  localLogStartOffset?: number;
  /** Highest offset committed to the lake, null if never archived. */
  archivedOffset: number | null;
  /** Records not yet in the lake (logEndOffset - 1 - archivedOffset), null if never archived. */
  lakeLagRecords: number | null;
}

export interface TopicStatus {
  name: string;
  partitions: PartitionStatus[];
}

/** The archiver's summary of a topic's Delta table (published after each commit). */
export interface LakeTable {
  version: number;
  /** Live data files and their bytes. */
  files: number;
  bytes: number;
  lastCommitMs: number;
  /** The table's URL. */
  table: string;
}

export interface RedisMemory {
  node: string;
  usedMemory: number;
  usedMemoryHuman: string;
  maxMemory: number;
}
