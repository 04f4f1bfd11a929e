// Parquet checkpoints: one row per action, one struct column per action type
// (txn, add, remove, metaData, protocol), exactly one non-null per row.
import * as arrow from 'apache-arrow';
import * as pq from 'parquet-wasm';
import type { Action } from './actions.js';

const str = () => new arrow.Utf8();
const long = () => new arrow.Int64();
const F = (name: string, type: arrow.DataType, nullable = true) => new arrow.Field(name, type, nullable);
const strMap = () =>
  new arrow.Map_(
    new arrow.Field(
      'key_value',
      new arrow.Struct<{ key: arrow.Utf8; value: arrow.Utf8 }>([
        new arrow.Field('key', str(), false),
        new arrow.Field('value', str(), true),
      ]),
      false,
    ),
    false,
  );

export const CHECKPOINT_TYPE = new arrow.Struct([
  F('txn', new arrow.Struct([F('appId', str()), F('version', long()), F('lastUpdated', long())])),
  F(
    'add',
    new arrow.Struct([
      F('path', str()),
      F('partitionValues', strMap()),
      F('size', long()),
      F('modificationTime', long()),
      F('dataChange', new arrow.Bool()),
      F('stats', str()),
      F('tags', strMap()),
    ]),
  ),
  F(
    'remove',
    new arrow.Struct([
      F('path', str()),
      F('deletionTimestamp', long()),
      F('dataChange', new arrow.Bool()),
      F('extendedFileMetadata', new arrow.Bool()),
      F('partitionValues', strMap()),
      F('size', long()),
    ]),
  ),
  F(
    'metaData',
    new arrow.Struct([
      F('id', str()),
      F('name', str()),
      F('description', str()),
      F('format', new arrow.Struct([F('provider', str()), F('options', strMap())])),
      F('schemaString', str()),
      F('partitionColumns', new arrow.List(F('element', str(), true))),
      F('configuration', strMap()),
      F('createdTime', long()),
    ]),
  ),
  F('protocol', new arrow.Struct([F('minReaderVersion', new arrow.Int32()), F('minWriterVersion', new arrow.Int32())])),
]);

const big = (v: number | null | undefined) => (v == null ? null : BigInt(v));

function row(a: Action): Record<string, unknown> {
  if ('txn' in a) return { txn: { appId: a.txn.appId, version: big(a.txn.version), lastUpdated: big(a.txn.lastUpdated) } };
  if ('add' in a)
    return {
      add: {
        path: a.add.path,
        partitionValues: a.add.partitionValues,
        size: big(a.add.size),
        modificationTime: big(a.add.modificationTime),
        dataChange: a.add.dataChange,
        stats: a.add.stats ?? null,
        tags: a.add.tags ?? null,
      },
    };
  if ('remove' in a)
    return {
      remove: {
        path: a.remove.path,
        deletionTimestamp: big(a.remove.deletionTimestamp),
        dataChange: a.remove.dataChange,
        extendedFileMetadata: a.remove.extendedFileMetadata ?? null,
        partitionValues: a.remove.partitionValues ?? null,
        size: big(a.remove.size),
      },
    };
  if ('metaData' in a) {
    const m = a.metaData;
    return {
      metaData: {
        id: m.id,
        name: m.name ?? null,
        description: m.description ?? null,
        format: { provider: m.format.provider, options: m.format.options ?? {} },
        schemaString: m.schemaString,
        partitionColumns: m.partitionColumns,
        configuration: m.configuration ?? {},
        createdTime: big(m.createdTime),
      },
    };
  }
  if ('protocol' in a) return { protocol: a.protocol };
  throw new Error('commitInfo does not belong in a checkpoint');
}

export function writeCheckpoint(actions: Action[]): Uint8Array {
  const b = arrow.makeBuilder({ type: CHECKPOINT_TYPE, nullValues: [null, undefined] });
  for (const a of actions) b.append(row(a) as never);
  const vec = b.finish().toVector();
  const schema = new arrow.Schema(CHECKPOINT_TYPE.children);
  const batches = vec.data.map((d) => new arrow.RecordBatch(schema, d));
  const ipc = arrow.tableToIPC(new arrow.Table(schema, batches), 'stream');
  const props = new pq.WriterPropertiesBuilder().setCompression(pq.Compression.ZSTD).build();
  return pq.writeParquet(pq.Table.fromIPCStream(ipc), props);
}

function plain(v: unknown): unknown {
  if (v == null) return null;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v !== 'object') return v;
  if (v instanceof Uint8Array) return v;
  const o = v as { toArray?: () => unknown[]; toJSON?: () => unknown; [Symbol.iterator]?: unknown };
  // MapRow (entries), StructRow (object), Vector (array)
  if (v instanceof arrow.Vector) return [...(v as arrow.Vector)].map(plain);
  const ctor = (v as object).constructor?.name;
  if (ctor === 'MapRow') {
    const out: Record<string, unknown> = {};
    for (const [k, val] of v as unknown as Iterable<[string, unknown]>) out[k] = plain(val);
    return out;
  }
  const j = typeof o.toJSON === 'function' ? (o.toJSON() as Record<string, unknown>) : (v as Record<string, unknown>);
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(j)) out[k] = plain(val);
  return out;
}

export function readCheckpoint(bytes: Uint8Array): Action[] {
  const t = arrow.tableFromIPC(pq.readParquet(bytes).intoIPCStream());
  const out: Action[] = [];
  const kinds = ['protocol', 'metaData', 'txn', 'add', 'remove'] as const;
  const cols = kinds.map((k) => [k, t.getChild(k)] as const).filter(([, c]) => c != null);
  for (let i = 0; i < t.numRows; i++) {
    for (const [k, c] of cols) {
      const v = c!.get(i);
      if (v == null) continue;
      const p = plain(v) as Record<string, unknown>;
      if (k === 'add' || k === 'remove') {
        if (p.path == null) continue;
        if (p.partitionValues == null) p.partitionValues = {};
      }
      out.push({ [k]: p } as unknown as Action);
    }
  }
  return out;
}
