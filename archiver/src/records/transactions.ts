// Only committed data may reach the lake.
//
// Control batches (commit/abort markers) are always skipped by the decoder.
// Aborted transactional data is whole batches (a transactional batch belongs to
// exactly one transaction of one producer), so the filter works per batch, in
// the main thread, before a batch is handed to a Parquet worker.
//
// The archiver's default hooks answer from the broker's transaction indexes
// in Redis (redis-transactions.ts): the aborted-transaction index (producerId
// + offset ranges) and a `lastStableOffset` that stops the archiver at the LSO
// so that undecided transactions are never archived. `abortedTransactionFilter`
// below keeps everything and sets no bound (for tests and tools).

export interface BatchInfo {
  topic: string;
  partition: number;
  baseOffset: number;
  lastOffset: number;
  producerId: bigint;
  producerEpoch: number;
  isTransactional: boolean;
}

export interface TransactionHooks {
  /** true = the batch belongs to an aborted transaction and must be dropped. */
  isAbortedBatch(batch: BatchInfo): boolean | Promise<boolean>;
  /**
   * The first offset that is not yet decided (Kafka's last stable offset), or
   * null for "no bound" (everything in the stream may be archived).
   */
  lastStableOffset(topic: string, partition: number): number | null | Promise<number | null>;
}

/** Hooks that keep everything: nothing is aborted, no LSO bound. */
export const abortedTransactionFilter: TransactionHooks = {
  isAbortedBatch: () => false,
  lastStableOffset: () => null,
};
