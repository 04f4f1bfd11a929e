// Redis keys the archiver reads and writes (see docs/redis-keys.md, "Archiver" section).
export class Keys {
  constructor(readonly prefix = 'rn') {}
  topics() {
    return `${this.prefix}:topics`;
  }
  log(topic: string, p: number) {
    return `${this.prefix}:{${topic}/${p}}:log`;
  }
  meta(topic: string, p: number) {
    return `${this.prefix}:{${topic}/${p}}:meta`;
  }
  lease(topic: string, p: number) {
    return `${this.prefix}:{${topic}/${p}}:archiver-lease`;
  }
  members() {
    return `${this.prefix}:archivers`;
  }
}

/** Delta `txn.appId` of a source partition: `runnel/<topic>/<partition>`. */
export function appIdOf(topic: string, partition: number): string {
  return `runnel/${topic}/${partition}`;
}
