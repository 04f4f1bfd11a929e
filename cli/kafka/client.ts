// The CLI's cluster view: a bootstrap connection, Metadata for brokers,
// partition leaders and topic ids, one connection per broker (opened on first
// use), and group coordinators from FindCoordinator.
import { Metadata } from '../../broker/src/protocol/messages/metadata.js';
import { FindCoordinator } from '../../broker/src/protocol/messages/find-coordinator.js';
import { ErrorCode } from '../../common/errors.js';
import { check, KafkaResponseError, RETRIABLE } from './errors.js';
import { Connection } from './connection.js';
import type { ClientConfig } from './config.js';

export interface PartitionInfo {
  partition: number;
  leader: number;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
  errorCode: number;
}

export interface TopicInfo {
  name: string;
  topicId: string;
  internal: boolean;
  errorCode: number;
  partitions: PartitionInfo[];
}

export interface BrokerInfo {
  nodeId: number;
  host: string;
  port: number;
  rack: string | null;
}

export interface ClusterInfo {
  clusterId: string | null;
  controllerId: number;
  brokers: BrokerInfo[];
  topics: TopicInfo[];
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class KafkaClient {
  private readonly conns = new Map<string, Promise<Connection>>();
  private brokers = new Map<number, BrokerInfo>();

  private constructor(readonly cfg: ClientConfig, private bootstrapConn: Connection) {}

  static async connect(cfg: ClientConfig): Promise<KafkaClient> {
    let last: unknown;
    for (const b of cfg.bootstrap) {
      try {
        return new KafkaClient(cfg, await Connection.open(b.host, b.port, cfg));
      } catch (e) {
        if (e instanceof KafkaResponseError) throw e;
        last = e;
      }
    }
    throw last instanceof Error ? last : new Error('no bootstrap server');
  }

  /** Any live connection (the bootstrap one, reopened if it dropped). */
  async any(): Promise<Connection> {
    if (this.bootstrapConn.closed) {
      const b = this.cfg.bootstrap[0]!;
      this.bootstrapConn = await Connection.open(b.host, b.port, this.cfg);
    }
    return this.bootstrapConn;
  }

  /**
   * Metadata for `topics` (null: every topic). `autoCreate` asks the broker to
   * create a missing topic, as Kafka's producer does; the broker's
   * auto.create.topics.enable decides.
   */
  async metadata(topics: string[] | null, autoCreate = false): Promise<ClusterInfo> {
    const c = await this.any();
    const r = await c.request(Metadata, (v) => ({
      topics: topics === null ? (v >= 1 ? null : []) : topics.map((name) => ({ name, topicId: null })),
      allowAutoTopicCreation: autoCreate && topics !== null,
      includeTopicAuthorizedOperations: false,
    }));
    this.brokers = new Map(r.brokers.map((b) => [b.nodeId, { nodeId: b.nodeId, host: b.host, port: b.port, rack: b.rack }]));
    return {
      clusterId: r.clusterId,
      controllerId: r.controllerId,
      brokers: [...this.brokers.values()].sort((a, b) => a.nodeId - b.nodeId),
      topics: r.topics.map((t) => ({
        name: t.name ?? '',
        topicId: t.topicId,
        internal: t.isInternal,
        errorCode: t.errorCode,
        partitions: t.partitions.map((p) => ({
          partition: p.partitionIndex, leader: p.leaderId, leaderEpoch: p.leaderEpoch, replicas: p.replicaNodes, isr: p.isrNodes, errorCode: p.errorCode,
        })).sort((a, b) => a.partition - b.partition),
      })),
    };
  }

  /**
   * One topic's metadata, retried while its leaders are elected;
   * UNKNOWN_TOPIC_OR_PARTITION when it does not exist (and, with `autoCreate`,
   * the broker did not create it).
   */
  async topic(name: string, waitMs = 10_000, autoCreate = false): Promise<TopicInfo> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const t = (await this.metadata([name], autoCreate)).topics.find((x) => x.name === name);
      const code = !t ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : t.errorCode !== ErrorCode.NONE ? t.errorCode : t.partitions.find((p) => p.leader < 0)?.errorCode ?? ErrorCode.NONE;
      const leaderless = t !== undefined && t.errorCode === ErrorCode.NONE && t.partitions.some((p) => p.leader < 0);
      if (t && code === ErrorCode.NONE && !leaderless) return t;
      if (code === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION || Date.now() > deadline || (!leaderless && !RETRIABLE.has(code))) {
        throw new KafkaResponseError(code === ErrorCode.NONE ? ErrorCode.LEADER_NOT_AVAILABLE : code, `topic ${name}`);
      }
      await sleep(200);
    }
  }

  /** The connection to broker `nodeId` (from the last metadata). */
  async broker(nodeId: number): Promise<Connection> {
    let b = this.brokers.get(nodeId);
    if (!b) {
      await this.metadata([]);
      b = this.brokers.get(nodeId);
      if (!b) throw new KafkaResponseError(ErrorCode.BROKER_NOT_AVAILABLE, `broker ${nodeId}`);
    }
    return this.connection(b.host, b.port, `node-${nodeId}`);
  }

  /** A connection by address; `slot` keeps separate connections to one broker (a group's heartbeats apart from its fetches). */
  async connection(host: string, port: number, slot: string): Promise<Connection> {
    const key = `${slot}@${host}:${port}`;
    const open = this.conns.get(key);
    if (open) {
      const c = await open.catch(() => null);
      if (c && !c.closed) return c;
    }
    const p = Connection.open(host, port, this.cfg);
    this.conns.set(key, p);
    return p;
  }

  /** The coordinator of group `groupId` (FindCoordinator, key type 0), retried while it loads. */
  async coordinator(groupId: string, slot = 'coordinator', waitMs = 15_000): Promise<Connection> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const c = await this.any();
      const r = await c.request(FindCoordinator, { key: groupId, keyType: 0, coordinatorKeys: [groupId] });
      const one = r.coordinators[0];
      const code = one ? one.errorCode : r.errorCode;
      if (code === ErrorCode.NONE) return this.connection(one ? one.host : r.host, one ? one.port : r.port, `${slot}-${groupId}`);
      if (!RETRIABLE.has(code) || Date.now() > deadline) check(code, `FindCoordinator for group ${groupId}`, one ? one.errorMessage : r.errorMessage);
      await sleep(200);
    }
  }

  /** The partitions of `topic` grouped by leader node. */
  static byLeader(t: TopicInfo, partitions: number[]): Map<number, number[]> {
    const m = new Map<number, number[]>();
    for (const p of partitions) {
      const info = t.partitions.find((x) => x.partition === p);
      if (!info) throw new KafkaResponseError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `${t.name}-${p}`);
      m.set(info.leader, [...(m.get(info.leader) ?? []), p]);
    }
    return m;
  }

  close(): void {
    this.bootstrapConn.close();
    for (const p of this.conns.values()) void p.then((c) => c.close(), () => undefined);
  }
}
