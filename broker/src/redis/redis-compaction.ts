// Log compaction on Redis streams (docs/architecture.md, "Log compaction"):
// the compacted prefix of a partition is a second stream (`:clog`), rebuilt
// aside (`:clog-new`) by each pass and swapped in by lua/compact-finish.lua.
// Every key named here carries the partition's hash tag, so each script runs
// on one slot.
import { createHash } from 'node:crypto';
import type { RedisClient } from '../../../common/redis/connect.js';
import type { CompactedBatch, CompactionStore, StoredBatch, TopicPartition } from '../storage/log-store.js';
import { baseOfEntryId, entryId, type Keys } from './keys.js';
import { luaSource } from './lua.js';
import { fieldValue, guard, storageError, toBatches, type RawEntry } from './stream-entries.js';

const BEGIN_LUA = luaSource('compact-begin');
const WRITE_LUA = luaSource('compact-write');
const FINISH_LUA = luaSource('compact-finish');

export type CompactionRedis = RedisClient & {
  compactBegin(meta: string, scratch: string, epoch: string, token: string): Promise<number>;
  compactWrite(meta: string, scratch: string, token: string, ...triples: Array<string | Buffer>): Promise<number>;
  compactFinish(meta: string, log: string, clog: string, scratch: string, epoch: string, token: string, cleanedTo: string): Promise<number>;
};

/** Registers the compaction scripts on a client (EVALSHA with a fallback to EVAL). */
export function defineCompactionCommands(client: RedisClient): void {
  client.defineCommand('compactBegin', { numberOfKeys: 2, lua: BEGIN_LUA });
  client.defineCommand('compactWrite', { numberOfKeys: 2, lua: WRITE_LUA });
  client.defineCommand('compactFinish', { numberOfKeys: 4, lua: FINISH_LUA });
}

/** The scripts' SHA-1s, for tests that check the scripts are loaded. */
export const COMPACTION_SCRIPT_SHAS = [BEGIN_LUA, WRITE_LUA, FINISH_LUA].map((s) => createHash('sha1').update(s).digest('hex'));

const isFenced = (e: unknown): boolean => e instanceof Error && /^FENCED\b/.test(e.message);

function horizonOf(fields: Buffer[]): number | null {
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i]!.length === 1 && fields[i]![0] === 0x68 /* 'h' */) return Number(fields[i + 1]!.toString());
  }
  return null;
}

export class RedisCompaction implements CompactionStore {
  constructor(private readonly client: () => CompactionRedis, private readonly keys: Keys, private readonly memoryUsage: (key: string) => Promise<number>) {}

  async scanLog(tp: TopicPartition, fromBase: number, count: number): Promise<StoredBatch[]> {
    const raw = this.client().xrangeBuffer(this.keys.log(tp), entryId(fromBase), '+', 'COUNT', count) as unknown as Promise<RawEntry[]>;
    return toBatches(await guard(raw));
  }

  async scanCompacted(tp: TopicPartition, fromBase: number, count: number): Promise<CompactedBatch[]> {
    const raw = this.client().xrangeBuffer(this.keys.compacted(tp), entryId(fromBase), '+', 'COUNT', count) as unknown as Promise<RawEntry[]>;
    return (await guard(raw)).map(([id, fields]) => ({ baseOffset: baseOfEntryId(id), bytes: fieldValue(fields), horizon: horizonOf(fields) }));
  }

  async begin(tp: TopicPartition, epoch: number, token: string): Promise<boolean> {
    return this.fenced(this.client().compactBegin(this.keys.meta(tp), this.keys.compactedScratch(tp), String(epoch), token));
  }

  async write(tp: TopicPartition, token: string, batches: CompactedBatch[]): Promise<boolean> {
    if (batches.length === 0) return true;
    const args: Array<string | Buffer> = [];
    for (const b of batches) args.push(entryId(b.baseOffset), b.bytes, b.horizon === null ? '' : String(b.horizon));
    return this.fenced(this.client().compactWrite(this.keys.meta(tp), this.keys.compactedScratch(tp), token, ...args));
  }

  async finish(tp: TopicPartition, epoch: number, token: string, cleanedTo: number): Promise<boolean> {
    const k = this.keys;
    return this.fenced(this.client().compactFinish(
      k.meta(tp), k.log(tp), k.compacted(tp), k.compactedScratch(tp),
      String(epoch), token, String(cleanedTo),
    ));
  }

  async sizes(tp: TopicPartition): Promise<{ log: number; compacted: number }> {
    const [log, compacted] = await Promise.all([this.memoryUsage(this.keys.log(tp)), this.memoryUsage(this.keys.compacted(tp))]);
    return { log, compacted };
  }

  private async fenced(p: Promise<number>): Promise<boolean> {
    try {
      await p;
      return true;
    } catch (e) {
      if (isFenced(e)) return false;
      throw storageError(e);
    }
  }
}
