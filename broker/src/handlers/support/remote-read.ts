// Fetch below the Redis log start of a tiered partition: batches rebuilt from
// the lake, up to the local log start. Where the lake holds no record between
// the fetch offset and the local log start (the offsets there were
// transaction markers or aborted records, which are never archived), the
// answer continues with what Redis holds from its log start, as a Kafka log
// with gaps would: the consumer moves past the gap without an error.
import type { Partition } from '../../log/partition.js';
import type { FetchBatch } from '../../storage/log-store.js';
import type { RemoteLog } from '../../storage/remote-log.js';

const TIMED_OUT = Symbol('timed out');

/** Lake reads in flight per remote tier, by partition and offset: a consumer's next fetch joins its last one's read. */
const inFlight = new WeakMap<RemoteLog, Map<string, Promise<FetchBatch[]>>>();

/**
 * Kafka's remote.fetch.max.wait.ms: a slow lake answers this partition with
 * no records this time. The read goes on; the consumer's next fetch of the
 * same offset waits for that read instead of starting another, so a read that
 * fails (S3 errors retried by its client, a stalled connection) reaches a
 * fetch as KAFKA_STORAGE_ERROR once it does, however long it took.
 */
function sharedRead(remote: RemoteLog, p: Partition, topicId: string, offset: number, end: number, maxBytes: number): Promise<FetchBatch[]> {
  let reads = inFlight.get(remote);
  if (!reads) inFlight.set(remote, (reads = new Map()));
  const key = `${p.tp.topic}\u0000${p.tp.partition}\u0000${offset}\u0000${end}`;
  const running = reads.get(key);
  if (running) return running;
  const read = remote.read(p.tp, topicId, offset, end, maxBytes);
  reads.set(key, read);
  const forget = (): void => { if (reads.get(key) === read) reads.delete(key); };
  read.then(forget, forget);
  return read;
}

export async function readRemote(
  remote: RemoteLog, p: Partition, topicId: string, offset: number, maxBytes: number, committed: boolean,
  seen: { highWatermark: number; lastStableOffset: number }, maxWaitMs: number,
): Promise<FetchBatch[]> {
  const end = p.logStartOffset;
  const read = sharedRead(remote, p, topicId, offset, end, maxBytes);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => { timer = setTimeout(() => resolve(TIMED_OUT), maxWaitMs); });
  read.catch(() => {}); // a failure no fetch waits for any more is the next joiner's, or nobody's
  const got = await Promise.race([read, timeout]).finally(() => clearTimeout(timer));
  if (got === TIMED_OUT) return [];
  if (got.length === 0) return p.readForFetch(end, maxBytes, committed, seen);
  seen.highWatermark = p.highWatermark;
  seen.lastStableOffset = p.lastStableOffset;
  return got;
}
