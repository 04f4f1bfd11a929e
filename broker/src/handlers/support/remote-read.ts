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

export async function readRemote(
  remote: RemoteLog, p: Partition, topicId: string, offset: number, maxBytes: number, committed: boolean,
  seen: { highWatermark: number; lastStableOffset: number }, maxWaitMs: number,
): Promise<FetchBatch[]> {
  const end = p.logStartOffset;
  const read = remote.read(p.tp, topicId, offset, end, maxBytes);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => { timer = setTimeout(() => resolve(TIMED_OUT), maxWaitMs); });
  // Kafka's remote.fetch.max.wait.ms: a slow lake answers this partition with no records this time; the read
  // goes on and fills the reader's cache for the client's next fetch (its failure is then not this fetch's).
  read.catch(() => {});
  const got = await Promise.race([read, timeout]).finally(() => clearTimeout(timer));
  if (got === TIMED_OUT) return [];
  if (got.length === 0) return p.readForFetch(end, maxBytes, committed, seen);
  seen.highWatermark = p.highWatermark;
  seen.lastStableOffset = p.lastStableOffset;
  return got;
}
