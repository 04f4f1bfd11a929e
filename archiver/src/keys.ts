// Redis keys the archiver reads and writes: names come from common/keys.ts
// (docs/redis-keys.md, "Archiver keys"); this adapter keeps the archiver's
// (topic, partition) call style.
import { Keys as SharedKeys } from '../../common/keys.js';

export class Keys {
  private readonly k: SharedKeys;
  constructor(readonly prefix = 'rn') {
    this.k = new SharedKeys(prefix);
  }
  topics(): string { return this.k.topics; }
  log(topic: string, p: number): string { return this.k.log({ topic, partition: p }); }
  meta(topic: string, p: number): string { return this.k.meta({ topic, partition: p }); }
  lease(topic: string, p: number): string { return this.k.archiverLease({ topic, partition: p }); }
  members(): string { return this.k.archivers; }
}

/** Delta `txn.appId` of a source partition: `runnel/<topic>/<partition>`. */
export function appIdOf(topic: string, partition: number): string {
  return `runnel/${topic}/${partition}`;
}
