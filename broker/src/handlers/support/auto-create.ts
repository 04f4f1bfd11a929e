// Auto-creation of topics named in Metadata requests, as Kafka's
// AutoTopicCreationManager does it: the request is answered at once with
// LEADER_NOT_AVAILABLE (retriable: the client asks again) for every topic
// whose creation starts, and the topics are created in the background, in
// bulk (one LogStore.createTopics call per chunk, one chunk at a time). A
// topic already being created is not queued again (Kafka's inflight set), so
// clients that retry, or several clients asking for the same names, create
// each topic once. The partition limits (partition-limits.ts) are checked
// when a name is queued, counting the partitions still being created, and
// again against the stored topics before each chunk is written.
import { randomUUID } from 'node:crypto';
import { createLogger } from '../../../../common/logger/logger.js';
import type { LogManager } from '../../log/log-manager.js';
import { isInternalTopic } from '../../log/internal-topics.js';
import type { TopicRecord } from '../../storage/log-store.js';
import { partitionLimitError, totalPartitions, type LimitError } from '../../topics/partition-limits.js';

/** Records written per createTopics call: bounds one pipeline of HSETNX and one Redis reply. */
export const AUTO_CREATE_CHUNK = 500;

const log = createLogger('info', 'topics');

/** Per requested name: 'creating' (answer LEADER_NOT_AVAILABLE), or why it is not created. */
export type AutoCreateAnswer = 'creating' | LimitError;

export class AutoTopicCreator {
  /** Name -> partitions, from queueing until its chunk is written. */
  private readonly inflight = new Map<string, number>();
  private readonly queue: string[] = [];
  private draining: Promise<void> | null = null;

  constructor(private readonly logs: LogManager) {}

  /** Names being created now (tests, status). */
  get pending(): number { return this.inflight.size; }

  /**
   * Starts creating the topics named (unknown to the caller, names valid,
   * auto-creation allowed): one read of the stored topics for the limits,
   * then the answers; the creation itself runs after this returns.
   */
  async request(names: string[]): Promise<Map<string, AutoCreateAnswer>> {
    const answers = new Map<string, AutoCreateAnswer>();
    const fresh = names.filter((n) => !this.inflight.has(n));
    for (const n of names) if (this.inflight.has(n)) answers.set(n, 'creating');
    if (fresh.length === 0) return answers;
    const stored = await this.logs.allTopics();
    const have = new Set(stored.map((t) => t.name));
    let total = totalPartitions(stored.filter((t) => !isInternalTopic(t.name))) + this.inflightPartitions();
    const partitions = this.logs.config.numPartitions;
    for (const name of fresh) {
      if (answers.has(name)) continue; // named twice in one request
      // Created meanwhile (by another broker, or a chunk just written): the next Metadata describes it.
      if (have.has(name)) { answers.set(name, 'creating'); continue; }
      const limit = partitionLimitError(this.logs.config, name, partitions, partitions, total);
      if (limit) { answers.set(name, limit); continue; }
      total += partitions;
      this.inflight.set(name, partitions);
      this.queue.push(name);
      answers.set(name, 'creating');
    }
    this.draining ??= this.drain().finally(() => { this.draining = null; });
    return answers;
  }

  /** Resolves once every queued name has been written (or failed); for tests and shutdown. */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private inflightPartitions(): number {
    let n = 0;
    for (const p of this.inflight.values()) n += p;
    return n;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const names = this.queue.splice(0, AUTO_CREATE_CHUNK);
      try {
        await this.createChunk(names);
      } catch (e) {
        // Redis unavailable: nothing of this chunk is known to exist; a later Metadata queues the names again.
        log.warn('auto-creation of topics failed', { topics: names.length, first: names[0], error: e instanceof Error ? e.message : String(e) });
      } finally {
        for (const n of names) this.inflight.delete(n);
      }
    }
  }

  private async createChunk(names: string[]): Promise<void> {
    const config = this.logs.config;
    const stored = await this.logs.allTopics();
    const have = new Set(stored.map((t) => t.name));
    let total = totalPartitions(stored.filter((t) => !isInternalTopic(t.name)));
    const records: TopicRecord[] = [];
    for (const name of names) {
      if (have.has(name)) continue;
      const partitions = this.inflight.get(name) ?? config.numPartitions;
      // Another broker may have created topics since the name was queued.
      const limit = partitionLimitError(config, name, partitions, partitions, total);
      if (limit) { log.warn('auto-creation refused', { topic: name, reason: limit.message }); continue; }
      total += partitions;
      records.push({ name, id: randomUUID(), partitions, configs: {}, created: Date.now() });
    }
    if (records.length > 0) await this.logs.store.createTopics(records);
  }
}

const creators = new WeakMap<LogManager, AutoTopicCreator>();

/** The broker's one creator (per LogManager). */
export function autoTopicCreator(logs: LogManager): AutoTopicCreator {
  let c = creators.get(logs);
  if (!c) creators.set(logs, (c = new AutoTopicCreator(logs)));
  return c;
}
