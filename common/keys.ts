// Redis key names shared by the broker and the archiver: a public, versioned
// contract (docs/redis-keys.md, layout version 2).
//
// Every key starts with `<prefix>:` and a one-letter kind, so no user-chosen
// name can reach another kind's key:
//   <prefix>:p:{<topic>/<partition>}:<suffix>   one topic-partition
//   <prefix>:p:{<topic>/<partition>/<salt>}:<suffix>   the same, placed on a
//                                               chosen Redis Cluster shard
//   <prefix>:c:{<slot>}:<suffix>                one group-coordinator slot
//   <prefix>:g:{<escaped group id>}:<suffix>    one consumer group
//   <prefix>:x:{<escaped transactional id>}     one transactional id
//   <prefix>:s:{<escaped group id>}:<suffix>    one share group's share-partition state
//   <prefix>:q:{quotas}:<suffix>                client quotas (one hash tag: one shard)
//   <prefix>:a:{acls}:<suffix>                  the ACLs (one hash tag: one shard)
//   <prefix>:r:{schemas}:<suffix>               the Schema Registry (one hash tag: one shard)
//   <prefix>:<name>                             cluster-wide keys (no braces)
// Topic names are limited to [a-zA-Z0-9._-]; group ids may hold any
// character, so `%`, `{` and `}` are percent-escaped (an injective encoding:
// distinct ids give distinct keys and a well-formed hash tag).

export interface PartitionRef {
  topic: string;
  partition: number;
}

/**
 * Key layout version written to `<prefix>:layout`; a store with another
 * version is refused. Layout 3 added placement salts to partition hash tags;
 * a layout-2 store has none, so its keys are the same and it is upgraded in
 * place (a layout-2 broker then refuses the store, as it cannot read salts).
 */
export const KEY_LAYOUT_VERSION = 3;
export const UPGRADABLE_LAYOUTS: readonly string[] = ['2'];

/**
 * The hash tag of a partition: `{<topic>/<partition>}`, or with a placement
 * salt s > 0, `{<topic>/<partition>/<s>}`. The salt is chosen when the
 * partition is created so that its slot lands on a chosen cluster shard, and
 * stored with the topic (field `placement`), so it never changes.
 */
export function partitionTag(topic: string, partition: number, salt = 0): string {
  return salt > 0 ? `{${topic}/${partition}/${salt}}` : `{${topic}/${partition}}`;
}

/**
 * Fields of a partition's `:meta` hash (docs/redis-keys.md): the broker writes
 * most of them, the archiver `archived`, and each reads the other's. The Lua
 * scripts, which cannot import this, spell the same names.
 */
export const META_FIELD = {
  next: 'next',
  logStartOffset: 'logStartOffset',
  leaderEpoch: 'leaderEpoch',
  raised: 'raised',
  archived: 'archived',
  cleanedTo: 'cleanedTo',
  /** Tiered topics: the Kafka-visible log start when it lies below logStartOffset (the rest is in the lake). */
  remoteLogStart: 'remoteLogStart',
  cleaning: 'cleaning',
  syncs: 'syncs',
} as const;

export function escapeGroupId(id: string): string {
  return id.replace(/[%{}]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

export class Keys {
  /** Placement salts per topic (salts[p] of partition p), learnt from topic records. */
  private readonly placement = new Map<string, readonly number[]>();

  /**
   * `strict`: a partition key of a topic whose record was not read yet
   * (place()) throws instead of assuming salt 0. Cluster-mode stores are
   * strict, so a missed placement fails loudly instead of writing elsewhere.
   */
  constructor(readonly prefix = 'rn', public strict = false) {}

  /** Records a topic's placement salts (from its stored record); undefined = every salt 0. */
  place(topic: string, salts: readonly number[] | undefined): void {
    this.placement.set(topic, salts ?? []);
  }

  forget(topic: string): void {
    this.placement.delete(topic);
  }

  saltOf(tp: PartitionRef): number {
    const salts = this.placement.get(tp.topic);
    if (!salts) {
      if (this.strict) throw new Error(`no placement known for topic '${tp.topic}' (its record was not read)`);
      return 0;
    }
    return salts[tp.partition] ?? 0;
  }

  // ---- cluster-wide
  get layout(): string { return `${this.prefix}:layout`; }
  get topics(): string { return `${this.prefix}:topics`; }
  get topicIds(): string { return `${this.prefix}:topic-ids`; }
  get producerId(): string { return `${this.prefix}:producer-id`; }
  get clusterId(): string { return `${this.prefix}:cluster-id`; }
  get brokers(): string { return `${this.prefix}:brokers`; }
  get brokerLeases(): string { return `${this.prefix}:broker-leases`; }
  get groupIndex(): string { return `${this.prefix}:groups`; }
  /** Ids of the share groups with stored share-partition state. */
  get shareGroupIndex(): string { return `${this.prefix}:share-groups`; }
  get archivers(): string { return `${this.prefix}:archivers`; }
  /** Summary of each topic's Delta table, published by the archiver: topic -> JSON. */
  get lakeTables(): string { return `${this.prefix}:lake-tables`; }
  /** SASL/SCRAM credentials: `<mechanism>:<user>` -> Kafka's `salt=..,stored_key=..,server_key=..,iterations=..`. */
  get scramCredentials(): string { return `${this.prefix}:scram-credentials`; }

  // ---- one topic-partition (hash tag {<topic>/<partition>})
  tag(tp: PartitionRef): string { return partitionTag(tp.topic, tp.partition, this.saltOf(tp)); }
  private part(tp: PartitionRef, suffix: string): string { return `${this.prefix}:p:${this.tag(tp)}:${suffix}`; }
  log(tp: PartitionRef): string { return this.part(tp, 'log'); }
  meta(tp: PartitionRef): string { return this.part(tp, 'meta'); }
  leader(tp: PartitionRef): string { return this.part(tp, 'leader'); }
  epochs(tp: PartitionRef): string { return this.part(tp, 'epochs'); }
  producers(tp: PartitionRef): string { return this.part(tp, 'producers'); }
  archiverLease(tp: PartitionRef): string { return this.part(tp, 'archiver-lease'); }
  /** Compacted topics: the compacted prefix of the log (offsets below meta `cleanedTo`). */
  compacted(tp: PartitionRef): string { return this.part(tp, 'clog'); }
  /** Compacted topics: the next compacted prefix while a cleaner pass builds it. */
  compactedScratch(tp: PartitionRef): string { return this.part(tp, 'clog-new'); }
  /** Transactions: producer id -> first offset of its open transaction on the partition (the LSO is the smallest). */
  txns(tp: PartitionRef): string { return this.part(tp, 'txns'); }
  /** Transactions: aborted ranges, member `<producerId>:<firstOffset>:<lastOffset>`, score lastOffset. */
  aborted(tp: PartitionRef): string { return this.part(tp, 'aborted'); }
  /** Every key owned by one partition (topic deletion removes them all). */
  partitionKeys(tp: PartitionRef): string[] {
    return [this.log(tp), this.meta(tp), this.leader(tp), this.epochs(tp), this.producers(tp), this.archiverLease(tp), this.compacted(tp), this.compactedScratch(tp), this.txns(tp), this.aborted(tp)];
  }

  // ---- one group-coordinator slot (hash tag {<slot>})
  coordinatorLease(slot: number): string { return `${this.prefix}:c:{${slot}}:leader`; }
  coordinatorEpoch(slot: number): string { return `${this.prefix}:c:{${slot}}:epoch`; }
  /** Transactional ids that hash to the slot (a broker taking the slot over finds their transactions here). */
  slotTransactions(slot: number): string { return `${this.prefix}:c:{${slot}}:txns`; }
  /** `<producer id>:<group id>` of groups in the slot with pending transactional offset commits. */
  slotTxnOffsetGroups(slot: number): string { return `${this.prefix}:c:{${slot}}:txn-offset-groups`; }

  // ---- one consumer group (hash tag {<escaped id>})
  groupTag(groupId: string): string { return `{${escapeGroupId(groupId)}}`; }
  groupMeta(groupId: string): string { return `${this.prefix}:g:${this.groupTag(groupId)}:meta`; }
  groupOffsets(groupId: string): string { return `${this.prefix}:g:${this.groupTag(groupId)}:offsets`; }
  /** Transactional offset commits not yet committed or aborted by a marker (TxnOffsetCommit). */
  groupTxnOffsets(groupId: string): string { return `${this.prefix}:g:${this.groupTag(groupId)}:txn-offsets`; }
  /** Group configs set for the group (kafka-configs --entity-type groups). */
  groupConfig(groupId: string): string { return `${this.prefix}:g:${this.groupTag(groupId)}:config`; }

  // ---- one share group (hash tag {<escaped id>}, escaped like group ids): its share-partitions' state
  /** One share-partition's state hash (fields leaderEpoch, state). */
  sharePartition(groupId: string, topicId: string, partition: number): string { return `${this.prefix}:s:${this.groupTag(groupId)}:${topicId}/${partition}`; }
  /** The share group's membership (fields coordinatorEpoch, group). */
  shareGroupMeta(groupId: string): string { return `${this.prefix}:s:${this.groupTag(groupId)}:meta`; }
  /** The set of `<topicId>/<partition>` of the group's stored share-partitions. */
  sharePartitions(groupId: string): string { return `${this.prefix}:s:${this.groupTag(groupId)}:partitions`; }

  // ---- one transactional id (hash tag {<escaped id>}, escaped like group ids)
  transaction(transactionalId: string): string { return `${this.prefix}:x:{${escapeGroupId(transactionalId)}}`; }

  // ---- client quotas (hash tag {quotas}: both keys on one shard, changed in one MULTI)
  /** Every quota: field `<entity key>\t<quota key>`, value the number. */
  get quotaValues(): string { return `${this.prefix}:q:{quotas}:values`; }
  /** Counter bumped with every quota change; brokers poll it and reload on change. */
  get quotaVersion(): string { return `${this.prefix}:q:{quotas}:version`; }
  // ---- ACLs (hash tag {acls}: both keys on one shard, changed in one MULTI)
  /** Every ACL binding: field = the binding as a JSON array, value "1". */
  get aclBindings(): string { return `${this.prefix}:a:{acls}:bindings`; }
  /** Counter bumped with every ACL change; brokers poll it and reload on change. */
  get aclVersion(): string { return `${this.prefix}:a:{acls}:version`; }

  // ---- Schema Registry (hash tag {schemas}: every key on one shard, so one script may take them all)
  /** The last global schema id given out (`INCR`ed by lua/schema-register.lua). */
  get schemaNextId(): string { return `${this.prefix}:r:{schemas}:next-id`; }
  /** Schema id -> JSON `{"schemaType", "schema", "references"}`. */
  get schemaRecords(): string { return `${this.prefix}:r:{schemas}:ids`; }
  /** Digest of a schema (type, text, references) -> its id: one schema, one id. */
  get schemaDigests(): string { return `${this.prefix}:r:{schemas}:digests`; }
  /** Subject -> JSON `[[version, id, deleted 0|1], ...]`, ascending. */
  get schemaSubjects(): string { return `${this.prefix}:r:{schemas}:subjects`; }
  /** Subject -> compatibility level; the global level is the hash `schemaGlobal`. */
  get schemaConfig(): string { return `${this.prefix}:r:{schemas}:config`; }
  /** Subject -> mode. */
  get schemaModes(): string { return `${this.prefix}:r:{schemas}:modes`; }
  /** Global settings: fields `compatibility` and `mode`. */
  get schemaGlobal(): string { return `${this.prefix}:r:{schemas}:global`; }
}

/** Stream entry id of the batch whose base offset is `base`. */
export const entryId = (base: number): string => `${base}-1`;

export function baseOfEntryId(id: Buffer | string): number {
  const s = typeof id === 'string' ? id : id.toString('latin1');
  return Number(s.slice(0, s.indexOf('-')));
}
