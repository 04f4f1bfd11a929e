// Delta Lake transaction log actions (PROTOCOL.md), the subset the archiver writes and reads.

export interface Protocol {
  minReaderVersion: number;
  minWriterVersion: number;
}

export interface MetaData {
  id: string;
  name?: string | null;
  description?: string | null;
  format: { provider: string; options: Record<string, string> };
  schemaString: string;
  partitionColumns: string[];
  configuration: Record<string, string>;
  createdTime?: number | null;
}

export interface AddFile {
  path: string;
  partitionValues: Record<string, string | null>;
  size: number;
  modificationTime: number;
  dataChange: boolean;
  stats?: string | null;
  tags?: Record<string, string> | null;
}

export interface RemoveFile {
  path: string;
  deletionTimestamp?: number | null;
  dataChange: boolean;
  extendedFileMetadata?: boolean | null;
  partitionValues?: Record<string, string | null> | null;
  size?: number | null;
}

export interface Txn {
  appId: string;
  version: number;
  lastUpdated?: number | null;
}

export interface CommitInfo {
  timestamp: number;
  operation: string;
  operationParameters?: Record<string, string>;
  txnId?: string;
  engineInfo?: string;
  isBlindAppend?: boolean;
  [k: string]: unknown;
}

export type Action =
  | { protocol: Protocol }
  | { metaData: MetaData }
  | { add: AddFile }
  | { remove: RemoveFile }
  | { txn: Txn }
  | { commitInfo: CommitInfo };

export function encodeCommit(actions: Action[]): Buffer {
  return Buffer.from(actions.map((a) => JSON.stringify(a)).join('\n') + '\n', 'utf8');
}

export function decodeCommit(bytes: Buffer): Action[] {
  const out: Action[] = [];
  for (const line of bytes.toString('utf8').split('\n')) {
    const t = line.trim();
    if (t) out.push(JSON.parse(t) as Action);
  }
  return out;
}

export function commitTxnId(actions: Action[]): string | undefined {
  for (const a of actions) if ('commitInfo' in a) return a.commitInfo.txnId;
  return undefined;
}

export const pad20 = (v: number) => String(v).padStart(20, '0');
