// An in-memory TxnStore with the Redis store's fencing rules (for unit tests).
import type { TxnMetadata } from '../../../broker/src/transactions/txn-metadata.js';
import { TxnCoordinatorFencedError, type TxnStore } from '../../../broker/src/transactions/txn-store.js';

export class MemoryTxnStore implements TxnStore {
  readonly txns = new Map<string, TxnMetadata>();
  readonly epochs = new Map<string, number>();
  readonly slots = new Map<number, Set<string>>();
  private pid = 1000;
  writes = 0;

  async load(id: string, epoch: number): Promise<TxnMetadata | null> {
    const stored = this.epochs.get(id) ?? -1;
    if (stored > epoch) throw new TxnCoordinatorFencedError(id, epoch, stored);
    if (this.txns.has(id)) this.epochs.set(id, epoch);
    const m = this.txns.get(id);
    return m ? structuredClone(m) : null;
  }

  async save(m: TxnMetadata, slot: number, epoch: number): Promise<void> {
    const stored = this.epochs.get(m.transactionalId) ?? -1;
    if (stored > epoch) throw new TxnCoordinatorFencedError(m.transactionalId, epoch, stored);
    this.writes++;
    this.epochs.set(m.transactionalId, epoch);
    this.txns.set(m.transactionalId, structuredClone(m));
    let s = this.slots.get(slot);
    if (!s) this.slots.set(slot, (s = new Set()));
    s.add(m.transactionalId);
  }

  async idsOfSlot(slot: number): Promise<string[]> {
    return [...(this.slots.get(slot) ?? [])];
  }

  async nextProducerId(): Promise<number> {
    return this.pid++;
  }
}
