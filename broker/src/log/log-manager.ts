// Topics and the partitions this broker leads. Topic metadata is cached and
// re-read from the store when a name is unknown (another broker may have
// created it).
import { randomUUID } from 'node:crypto';
import type { BrokerConfig } from '../config/config.js';
import { ReadAheadBudget } from './read-ahead.js';
import { TailCache } from './tail-cache.js';
import { ErrorCode, KafkaError, RunnelError } from '../../../common/errors.js';
import type { LogStore, TopicPartition, TopicRecord } from '../storage/log-store.js';
import type { LeaseUnit } from '../storage/cluster-store.js';
import { isTieredTopic, topicConfigNumber, topicConfigValue } from '../topics/topic-configs.js';
import { Partition, type EpochHistory } from './partition.js';
import { OFFSETS_TOPIC, OFFSETS_TOPIC_CONFIGS, isInternalTopic } from './internal-topics.js';
import { guardStoredTopic, partitionLimitError, quarantinedCount, totalPartitions, usablePartitionCount } from '../topics/partition-limits.js';
import { AppendOrder } from './append-order.js';
import { SequenceHoles } from './sequence-holes.js';
import { locateMaxTimestamp, locateTimestamp, type Located } from './time-index.js';

const LEGAL_TOPIC = /^[a-zA-Z0-9._-]+$/;
const MAX_TOPIC_NAME = 249;

export function validateTopicName(name: string): string | null {
  if (!name || name === '.' || name === '..') return `Topic name "${name}" is illegal`;
  if (name.length > MAX_TOPIC_NAME) return `Topic name is longer than ${MAX_TOPIC_NAME} characters`;
  if (!LEGAL_TOPIC.test(name)) return `Topic name "${name}" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'`;
  return null;
}

/** What the log needs to know about leadership (the cluster's Leadership implements it). */
export interface LeadershipView {
  leads(u: LeaseUnit): boolean;
  /** Takes leadership now if this broker should have it; resolves true if held. */
  claim(u: LeaseUnit): Promise<boolean>;
  /** Coordinator epoch of a slot held here, else null (leader epoch of `__consumer_offsets` partitions). */
  coordinatorEpoch(slot: number): number | null;
}

/** Partitions' leader epochs (the cluster store): bumped when this broker takes a partition over, their start offsets kept. */
export interface LeaderEpochs extends EpochHistory {
  /** Increments and returns the partition's leader epoch. */
  bumpLeaderEpoch(topic: string, partition: number): Promise<number>;
}

/** The cluster a log runs in, given at construction: who leads what, and the partitions' leader epochs. */
export interface LogCluster {
  leadership: LeadershipView;
  epochs: LeaderEpochs;
}

/** Without a cluster (unit tests), this broker leads everything. */
const SOLO: LeadershipView = { leads: () => true, claim: async () => true, coordinatorEpoch: () => 0 };

/** Without a cluster no epoch history is kept (and a takeover keeps epoch 0). */
const NO_HISTORY: LeaderEpochs = { recordEpochStart: async () => undefined, epochHistory: async () => new Map(), bumpLeaderEpoch: async () => 0 };

export class LogManager {
  readonly leadership: LeadershipView;
  /** Leader epochs of partitions (the cluster store): bumped on takeover, and the history of `__consumer_offsets` partitions taken over with a slot. */
  private readonly epochs: LeaderEpochs;
  private topics = new Map<string, TopicRecord>();
  private byId = new Map<string, string>();
  private partitions = new Map<string, Partition>();
  private lastFullRefresh = 0;

  /** The byte budget of all partitions' reads ahead (fetch.read.ahead.bytes). */
  readonly readAheadBudget: ReadAheadBudget;
  /** The batches appended last, all partitions together (log.tail.cache.bytes; tail-cache.ts). */
  readonly tailCache: TailCache;
  /** Produce appends in arrival order per partition (append-order.ts). */
  readonly appendOrder = new AppendOrder();
  /** Idempotent sequences to be retried before later ones (sequence-holes.ts). */
  readonly sequenceHoles = new SequenceHoles();

  /** Without `cluster` (unit tests) this broker leads everything and keeps no epoch history. */
  constructor(readonly store: LogStore, readonly config: BrokerConfig, cluster: Partial<LogCluster> = {}) {
    this.readAheadBudget = new ReadAheadBudget(config.fetchReadAheadBytes);
    this.tailCache = new TailCache(config.logTailCacheBytes);
    this.leadership = cluster.leadership ?? SOLO;
    this.epochs = cluster.epochs ?? NO_HISTORY;
  }

  async refreshTopics(): Promise<TopicRecord[]> {
    // A stored record with an absurd partition count is quarantined (served with no partitions), never enumerated.
    const all = (await this.store.listTopics()).map((t) => this.guard(t));
    const next = new Map(all.map((t) => [t.name, t]));
    for (const [name, old] of this.topics) {
      const now = next.get(name);
      if (!now || now.id !== old.id) this.dropPartitions(name);
    }
    this.topics = next;
    this.byId = new Map(all.map((t) => [t.id, t.name]));
    this.lastFullRefresh = Date.now();
    return all;
  }

  /** The internal topic is sized by offsets.topic.num.partitions, not bound by topic.max.partitions. */
  private guard(t: TopicRecord): TopicRecord {
    return isInternalTopic(t.name) && Number.isInteger(t.partitions) && t.partitions >= 1 ? t : guardStoredTopic(t, this.config);
  }

  /**
   * Creates `__consumer_offsets` (compacted, one partition per coordinator
   * slot) unless it exists; run at startup, before leadership starts. Its
   * partitions are outside the partition limits, as Kafka's internal topics
   * are created by the broker itself.
   */
  async ensureOffsetsTopic(slots: number): Promise<TopicRecord> {
    const existing = await this.store.getTopic(OFFSETS_TOPIC);
    const t = existing ?? (await this.store.createTopic({ name: OFFSETS_TOPIC, id: randomUUID(), partitions: slots, configs: { ...OFFSETS_TOPIC_CONFIGS }, created: Date.now() })) ?? (await this.store.getTopic(OFFSETS_TOPIC));
    if (!t) throw new Error(`${OFFSETS_TOPIC} could not be created`);
    this.topics.set(t.name, t);
    this.byId.set(t.id, t.name);
    return t;
  }

  /** All topics; while the store is unreachable, the last known list is served. */
  async allTopics(): Promise<TopicRecord[]> {
    try {
      return await this.refreshTopics();
    } catch (e) {
      if (e instanceof RunnelError && e.kind === 'STORAGE_UNAVAILABLE' && this.topics.size > 0) return [...this.topics.values()];
      throw e;
    }
  }

  cachedTopic(name: string): TopicRecord | undefined {
    return this.topics.get(name);
  }

  async topic(name: string): Promise<TopicRecord | null> {
    const cached = this.topics.get(name);
    if (cached) return cached;
    if (Date.now() - this.lastFullRefresh < 50) return null;
    const stored = await this.store.getTopic(name);
    const t = stored ? this.guard(stored) : null;
    if (t) {
      this.topics.set(name, t);
      this.byId.set(t.id, name);
    }
    return t;
  }

  async topicById(id: string): Promise<TopicRecord | null> {
    const name = this.byId.get(id);
    if (name) return this.topic(name);
    await this.refreshTopics();
    const again = this.byId.get(id);
    return again ? this.topics.get(again) ?? null : null;
  }

  /** Creates a topic; throws KafkaError(TOPIC_ALREADY_EXISTS) if it exists, KafkaError(POLICY_VIOLATION) past the partition limits. */
  async createTopic(name: string, partitions: number, configs: Record<string, string>, validateOnly = false): Promise<TopicRecord> {
    if (partitions > this.config.topicMaxPartitions || partitions > this.config.clusterMaxPartitions) {
      // Checked before the cluster total is read, so no count is ever enumerated.
      const limit = partitionLimitError(this.config, name, partitions, partitions, 0)!;
      throw new KafkaError(limit.code, limit.message);
    }
    const existing = totalPartitions((await this.allTopics()).filter((x) => x.name !== name && !isInternalTopic(x.name)));
    const limit = partitionLimitError(this.config, name, partitions, partitions, existing);
    if (limit) throw new KafkaError(limit.code, limit.message);
    const t: TopicRecord = { name, id: randomUUID(), partitions, configs, created: Date.now() };
    if (validateOnly) {
      if (await this.store.getTopic(name)) throw new KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${name}' already exists.`);
      return t;
    }
    const stored = await this.store.createTopic(t);
    if (!stored) throw new KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${name}' already exists.`);
    this.topics.set(name, stored);
    this.byId.set(stored.id, name);
    return stored;
  }

  async autoCreate(name: string): Promise<TopicRecord | null> {
    if (!this.config.autoCreateTopics || validateTopicName(name)) return null;
    try {
      return await this.createTopic(name, this.config.numPartitions, {});
    } catch (e) {
      if (e instanceof KafkaError && e.code === ErrorCode.TOPIC_ALREADY_EXISTS) {
        const t = await this.store.getTopic(name);
        return t ? this.guard(t) : null;
      }
      // Past a partition limit the topic is simply not created: the client sees UNKNOWN_TOPIC_OR_PARTITION.
      if (e instanceof KafkaError && e.code === ErrorCode.POLICY_VIOLATION) return null;
      throw e;
    }
  }

  async updateTopic(t: TopicRecord): Promise<void> {
    // A quarantined record is served with 0 partitions; writing that copy back would destroy the stored count.
    const cached = this.topics.get(t.name);
    if (cached && quarantinedCount(cached) !== null) {
      throw new KafkaError(ErrorCode.POLICY_VIOLATION, `Topic '${t.name}' has an unusable stored partition count and can only be deleted`);
    }
    this.topics.set(t.name, await this.store.updateTopic(t));
  }

  async deleteTopic(t: TopicRecord): Promise<void> {
    await this.store.deleteTopic(t);
    this.topics.delete(t.name);
    this.byId.delete(t.id);
    this.dropPartitions(t.name);
  }

  private dropPartitions(topic: string): void {
    for (const key of [...this.partitions.keys()]) {
      if (!key.startsWith(`${topic}\u0000`)) continue;
      this.partitions.get(key)?.close();
      this.partitions.delete(key);
    }
  }

  /**
   * The partition if this broker leads it; KafkaError UNKNOWN_TOPIC_OR_PARTITION
   * or NOT_LEADER_OR_FOLLOWER otherwise.
   */
  async partition(topic: string, index: number): Promise<Partition> {
    const p = this.partitions.get(`${topic}\u0000${index}`);
    if (p && this.leadership.leads(p.unit)) return p;
    const t = await this.topic(topic);
    if (!t || index < 0 || index >= t.partitions) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    return this.ledPartition(t, index);
  }

  /** The partition of a known topic if led here (claiming it when this broker should lead it). */
  async ledPartition(t: TopicRecord, index: number): Promise<Partition> {
    const p = this.partitionOf(t, index);
    if (!this.leadership.leads(p.unit) && !(await this.leadership.claim(p.unit))) throw new KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    if (p.unit.kind === 'coordinator') {
      // `__consumer_offsets`: written with the slot's coordinator epoch, so a stale coordinator's appends are fenced.
      const epoch = this.leadership.coordinatorEpoch(p.unit.slot);
      if (epoch === null) throw new KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER);
      await p.adoptEpoch(epoch, this.epochs);
    }
    return p;
  }

  /**
   * Every topic-partition there is to lead (a lease unit each). Internal
   * topics are left out (`__consumer_offsets` partitions ride on their
   * coordinator slots), and so is a topic whose count is past
   * topic.max.partitions (a hostile or corrupt record): it is never enumerated.
   */
  async partitionUnits(): Promise<LeaseUnit[]> {
    const units: LeaseUnit[] = [];
    for (const t of await this.allTopics()) {
      if (!usablePartitionCount(t.partitions, this.config) || isInternalTopic(t.name)) continue;
      for (let p = 0; p < t.partitions; p++) units.push({ kind: 'partition', topic: t.name, partition: p });
    }
    return units;
  }

  /**
   * This broker has just taken the partition's lease: its leader epoch is
   * bumped (fencing the previous leader's appends) and the partition reloaded
   * under it.
   */
  async takeLeadership(topic: string, index: number): Promise<void> {
    const t = await this.topic(topic);
    if (!t) throw new Error(`topic ${topic} vanished`);
    await this.partitionOf(t, index).takeLeadership(await this.epochs.bumpLeaderEpoch(topic, index), this.epochs);
  }

  /** Forgets a partition whose leadership moved away. */
  release(topic: string, index: number): void {
    const key = `${topic}\u0000${index}`;
    this.partitions.get(key)?.close();
    this.partitions.delete(key);
  }

  partitionOf(t: TopicRecord, index: number): Partition {
    const key = `${t.name}\u0000${index}`;
    let p = this.partitions.get(key);
    if (!p) {
      p = new Partition({ topic: t.name, partition: index }, this.store, { producerIdExpirationMs: this.config.producerIdExpirationMs, readAheadBudget: this.readAheadBudget, sequenceHoles: this.sequenceHoles, tailCache: this.tailCache });
      this.partitions.set(key, p);
    }
    return p;
  }

  cachedPartition(topic: string, index: number): Partition | undefined {
    return this.partitions.get(`${topic}\u0000${index}`);
  }

  loadedPartitions(): Partition[] {
    return [...this.partitions.values()];
  }

  configValue(t: TopicRecord, name: string): string {
    return topicConfigValue(t.configs, this.config, name);
  }

  /** remote.storage.enable=true on a broker with tiered storage on: offsets below the Redis log start are read from the lake. */
  isTiered(t: TopicRecord): boolean {
    return isTieredTopic(t.configs, this.config);
  }

  configNumber(t: TopicRecord, name: string): number {
    return topicConfigNumber(t.configs, this.config, name);
  }

  /** A new producer id, unique in the cluster (InitProducerId of an idempotent producer). */
  nextProducerId(): Promise<number> {
    return this.store.nextProducerId();
  }

  /** Bytes the partition takes in the store (DescribeLogDirs). */
  sizeBytes(tp: TopicPartition): Promise<number> {
    return this.store.sizeBytes(tp);
  }
  /** The first batch with a timestamp >= `ts` (ListOffsets by time); null when none. */
  locateTimestamp(p: Partition, ts: number): Promise<Located | null> {
    return locateTimestamp(this.store, p, ts);
  }

  /** The batch holding the partition's largest timestamp (ListOffsets MAX_TIMESTAMP); null when empty. */
  locateMaxTimestamp(p: Partition): Promise<Located | null> {
    return locateMaxTimestamp(this.store, p);
  }

  /** The stored tail of a partition this broker need not lead (its log end for metrics). */
  tail(tp: TopicPartition): ReturnType<LogStore['tail']> {
    return this.store.tail(tp);
  }


  /**
   * Moves the log start forward (DeleteRecords, retention) and trims whole
   * batches before it. `keepRemote` (a tiered topic's local retention): the
   * offsets below stay readable from the lake, so the Kafka-visible log start
   * is recorded first (before Redis drops anything) where none is yet.
   * Otherwise the remote tier, if any, ends too: both starts move.
   */
  async advanceLogStart(p: Partition, offset: number, keepRemote = false): Promise<void> {
    await p.ensureLoaded();
    if (offset <= p.logStartOffset) return;
    if (keepRemote && p.remoteLogStartOffset === null) {
      await this.store.setRemoteLogStartOffset(p.tp, p.logStartOffset);
      p.remoteLogStartOffset = p.logStartOffset;
    } else if (!keepRemote && p.remoteLogStartOffset !== null) {
      await this.store.setRemoteLogStartOffset(p.tp, null);
      p.remoteLogStartOffset = null;
    }
    p.logStartOffset = offset;
    await this.store.setLogStartOffset(p.tp, offset);
    // Keep the batch containing the new start (and always the newest batch).
    const containing = await this.store.readBackwards(p.tp, offset, 1);
    const keepFrom = containing[0]?.baseOffset ?? offset;
    const lastBase = (await this.store.readBackwards(p.tp, p.nextOffset, 1))[0]?.baseOffset ?? keepFrom;
    await this.store.trimBefore(p.tp, Math.min(keepFrom, lastBase));
  }

  /**
   * Moves the Kafka-visible start of a tiered partition (DeleteRecords, total
   * retention) within the lake; at or past the local start it is the log start.
   * The lake's rows stay (they are the SQL archive): only what consumers may fetch changes.
   */
  async advanceRemoteLogStart(p: Partition, offset: number): Promise<void> {
    await p.ensureLoaded();
    if (offset <= p.earliestOffset) return;
    if (offset >= p.logStartOffset) {
      await this.dropRemoteTier(p);
      return this.advanceLogStart(p, offset);
    }
    await this.store.setRemoteLogStartOffset(p.tp, offset);
    p.remoteLogStartOffset = offset;
  }

  /** A topic whose remote tier was switched off (remote.log.delete.on.disable): the log starts where Redis does again. */
  async dropRemoteTier(p: Partition): Promise<void> {
    if (p.remoteLogStartOffset === null) return;
    await this.store.setRemoteLogStartOffset(p.tp, null);
    p.remoteLogStartOffset = null;
  }

  tp(t: TopicRecord, p: number): TopicPartition {
    return { topic: t.name, partition: p };
  }
}
