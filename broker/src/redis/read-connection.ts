// The hot read path (Fetch): a dedicated Redis connection per primary that
// sends XRANGE / XREVRANGE and parses the reply itself as it streams in
// (resp-stream.ts), so a stored batch reaches the Fetch response as the
// slices of the socket chunks it arrived in, never re-assembled or copied.
// Connecting, TLS, AUTH/SELECT, command order and the reply watchdog are the
// append connection's (the same target options: redis[s]://, ACL user,
// redis.tls.*); only the reply parser differs.
import type { Cluster } from 'ioredis';
import type { ConnectionOptions } from 'node:tls';
import type net from 'node:net';
import { nodeKey, type RedisEndpoints } from '../../../common/redis/endpoints.js';
import { RunnelError } from '../../../common/errors.js';
import { fetchBatchOf, type FetchBatch, type StoredBatch } from '../storage/log-store.js';
import { AppendConnection, type AppendTarget, type Reply } from './append-connection.js';
import { baseOfEntryId } from './keys.js';
import type { Ranges } from './log-reads.js';
import { slotOfTag } from './placement.js';
import { Pieces, RespStreamParser, type RespValue } from './resp-stream.js';

export class ReadConnection extends AppendConnection {
  private parser = new RespStreamParser();

  /**
   * XRANGE (or XREVRANGE with `reverse`) of `key` from `start` to `end`, at
   * most `count` entries, as batches in reply order. Rejects with the error
   * reply itself (a MOVED, say) or the connection's failure.
   */
  async range(reverse: boolean, key: string, start: string, end: string, count: number): Promise<FetchBatch[]> {
    const reply = (await this.command([reverse ? 'XREVRANGE' : 'XRANGE', key, start, end, 'COUNT', String(count)])) as unknown as RespValue;
    if (reply instanceof Error) throw reply;
    return entriesToBatches(reply);
  }

  protected override onData(d: Buffer): void {
    try {
      this.parser.push(d, (v) => this.pending.shift()?.resolve(v as Reply));
    } catch (e) {
      if (this.socket) this.teardown(this.socket, e instanceof Error ? e : new Error(String(e)));
    }
  }

  protected override teardown(s: net.Socket, e: Error): void {
    // A new socket starts a new reply stream; an old socket closing late leaves the current one alone.
    if (this.socket === s) this.parser = new RespStreamParser();
    super.teardown(s, e);
  }
}

/** An XRANGE reply (entries of [id, [field, value, ...]]) as batches: the value of field `b` of each entry. */
export function entriesToBatches(reply: RespValue): FetchBatch[] {
  if (reply === null) return [];
  if (!Array.isArray(reply)) throw corrupt('not an array of entries');
  const out: FetchBatch[] = new Array(reply.length);
  for (let i = 0; i < reply.length; i++) {
    const entry = reply[i];
    if (!Array.isArray(entry) || !(entry[0] instanceof Pieces) || !Array.isArray(entry[1])) throw corrupt('an entry is not [id, fields]');
    const fields = entry[1];
    let batch: Pieces | null = null;
    for (let f = 0; f + 1 < fields.length; f += 2) {
      const name = fields[f];
      if (name instanceof Pieces && name.length === 1 && name.byteAt(0) === 0x62 /* 'b' */ && fields[f + 1] instanceof Pieces) {
        batch = fields[f + 1] as Pieces;
        break;
      }
    }
    if (!batch) throw new RunnelError('STORAGE_CORRUPT', 'stream entry without a batch field');
    // A record batch header is 61 bytes; lastOffsetDelta is at 23.
    if (batch.length < 61) throw corrupt(`a ${batch.length}-byte batch is shorter than a batch header`);
    out[i] = { baseOffset: baseOfEntryId(entry[0].toString()), lastOffsetDelta: batch.int32At(23), size: batch.length, pieces: batch.parts };
  }
  return out;
}

function corrupt(what: string): RunnelError {
  return new RunnelError('STORAGE_CORRUPT', `unexpected XRANGE reply: ${what}`);
}

/**
 * The read connections: one to a single Redis node, or in cluster mode one
 * per primary, chosen by the slot of the partition's hash tag through
 * ioredis's slot map (the append path routes the same way). A read that meets
 * a topology change (MOVED and the like) is not retried here: the store falls
 * back to ioredis for it, which follows redirections.
 */
export class ShardReaders {
  private readonly byNode = new Map<string, ReadConnection>();

  constructor(private readonly endpoints: RedisEndpoints, private readonly cluster: Cluster | null, private readonly tlsOptions: ConnectionOptions | undefined) {}

  /** The read connection for a slot's primary; null while the slot map names none (the caller uses ioredis). */
  forSlot(slot: number): ReadConnection | null {
    const node = this.cluster ? this.cluster.slots[slot]?.[0] : nodeKey(this.endpoints.seeds[0]!);
    if (!node) return null;
    let c = this.byNode.get(node);
    if (!c) {
      const at = node.lastIndexOf(':');
      const t: AppendTarget = { host: node.slice(0, at), port: Number(node.slice(at + 1)), username: this.endpoints.username, password: this.endpoints.password };
      if (!this.cluster && this.endpoints.db) t.db = this.endpoints.db;
      if (this.endpoints.tls) {
        t.tls = true;
        t.tlsOptions = this.tlsOptions ?? {};
      }
      c = new ReadConnection(t);
      this.byNode.set(node, c);
    }
    return c;
  }

  /** After a redirection: closes the connections to nodes that own no slot in the current map (a failed-over primary). */
  prune(): void {
    const cluster = this.cluster;
    if (!cluster) return;
    const owners = new Set<string>();
    for (const s of cluster.slots) if (s?.[0]) owners.add(s[0]);
    for (const [node, c] of this.byNode) {
      if (owners.has(node)) continue;
      c.close();
      this.byNode.delete(node);
    }
  }

  close(): void {
    for (const c of this.byNode.values()) c.close();
    this.byNode.clear();
  }
}

/** Error replies after which a read goes through ioredis instead, which follows redirections and waits out a failover's refusals. */
const isRedirect = (e: unknown): boolean => e instanceof Error && /^(MOVED|ASK|TRYAGAIN|CLUSTERDOWN)\b/.test(e.message);

/**
 * Ranges read over the read connection of the key's primary, and through
 * `fallback` (ioredis) where the slot map names no primary or Redis answers
 * with a redirection (the slot moved since the map was read).
 */
export function streamingRanges(readers: ShardReaders, fallback: Ranges<StoredBatch>): Ranges<FetchBatch> {
  const viaFallback = async (reverse: boolean, key: string, start: string, end: string, count: number): Promise<FetchBatch[]> =>
    (await fallback.range(reverse, key, start, end, count)).map(fetchBatchOf);
  return {
    async range(reverse, key, start, end, count) {
      const conn = readers.forSlot(slotOfTag(key));
      if (!conn) return viaFallback(reverse, key, start, end, count);
      try {
        return await conn.range(reverse, key, start, end, count);
      } catch (e) {
        if (!isRedirect(e)) throw e;
        readers.prune();
        return viaFallback(reverse, key, start, end, count);
      }
    },
    lastOffsetDelta: (b) => b.lastOffsetDelta,
  };
}
