// `runnel consume TOPIC`: prints records, by partition (every partition, or
// --partition P, from --offset / --from-beginning / the end) or as a member of
// a consumer group (--group G: the range assignor, committed offsets, commits
// every 5 s and on exit). Stops after --max-messages, after --timeout-ms
// without a record, or on Ctrl-C (SIGINT/SIGTERM), exit 0, with
// kafka-console-consumer's "Processed a total of N messages" on stderr.
import { CliUsageError } from '../kafka/errors.js';
import { separator } from '../kafka/lines.js';
import { EARLIEST, Fetcher, LATEST, type FetchOptions } from '../kafka/fetcher.js';
import { GroupMember } from '../kafka/group-member.js';
import { Output, writeJson, writeText, type RecordView, type TextFormat } from '../kafka/format.js';
import type { KafkaClient } from '../kafka/client.js';
import { CONNECTION_USAGE, int, nameArg, parse, str, withClient } from './common.js';

export const CONSUME_USAGE = `usage: runnel consume TOPIC [options]

Prints the records of TOPIC, one per line: by default the value; with the --print-* flags also the
timestamp, partition, offset, headers (k:v,k2:v2 or NO_HEADERS) and key, in that order, joined by
the key separator (kafka-console-consumer's format; bytes are written as they are, null as "null").
--json prints one JSON object per record instead: topic, partition, offset, timestamp,
timestampType, key, value, headers [{key, value}]; a key or value is null, a string when it is
valid UTF-8, else {"base64": "..."}.
Without --group every partition is read (or --partition P) from --offset, --from-beginning or the
end. With --group G the consumer joins G (range assignor), starts at G's committed offsets (where
none: the beginning with --from-beginning, else the end) and commits what it printed.
Stops after --max-messages N, after --timeout-ms MS without a record, or on Ctrl-C.

options:
  --group G                 consume as a member of consumer group G
  --from-beginning          start at the earliest offset (where nothing is committed, with --group)
  --offset N                start at offset N (or earliest | latest); not with --group
  --partition P             only partition P; not with --group
  --max-messages N          stop after N records
  --timeout-ms MS           stop when no record came for MS milliseconds
  --print-key               print the key
  --print-headers           print the headers
  --print-partition         print Partition:P
  --print-offset            print Offset:O
  --print-timestamp         print CreateTime:MS (or LogAppendTime:MS)
  --key-separator S         between the printed columns (default \\t; escapes \\t \\n \\r \\0 \\\\)
  --json                    one JSON object per record
  --isolation-level L       read_uncommitted (default) | read_committed
${CONNECTION_USAGE}`;

const OPTIONS = {
  group: { type: 'string' },
  'from-beginning': { type: 'boolean' },
  offset: { type: 'string' },
  partition: { type: 'string' },
  'max-messages': { type: 'string' },
  'timeout-ms': { type: 'string' },
  'print-key': { type: 'boolean' },
  'print-headers': { type: 'boolean' },
  'print-partition': { type: 'boolean' },
  'print-offset': { type: 'boolean' },
  'print-timestamp': { type: 'boolean' },
  'key-separator': { type: 'string' },
  json: { type: 'boolean' },
  'isolation-level': { type: 'string' },
} as const;

export interface ConsumeSettings {
  topic: string;
  group: string | undefined;
  /** EARLIEST, LATEST or an offset */
  start: number;
  partition: number | undefined;
  maxMessages: number | undefined;
  timeoutMs: number | undefined;
  json: boolean;
  text: TextFormat;
  isolationLevel: number;
}

export function consumeSettings(args: string[]): { settings: ConsumeSettings; values: ReturnType<typeof parse>['values'] } {
  const { values: v, positionals } = parse(args, OPTIONS);
  const topic = nameArg(positionals, 'topic name', 0);
  const group = str(v, 'group');
  const offset = str(v, 'offset');
  if (group !== undefined && offset !== undefined) throw new CliUsageError('--offset and --group cannot be used together (reset a group with `runnel group reset-offsets`)');
  if (group !== undefined && str(v, 'partition') !== undefined) throw new CliUsageError('--partition and --group cannot be used together');
  if (offset !== undefined && v['from-beginning']) throw new CliUsageError('--offset and --from-beginning cannot be used together');
  let start = v['from-beginning'] ? EARLIEST : LATEST;
  if (offset === 'earliest') start = EARLIEST;
  else if (offset === 'latest') start = LATEST;
  else if (offset !== undefined) start = int(v, 'offset', 0)!;
  const iso = str(v, 'isolation-level') ?? 'read_uncommitted';
  if (iso !== 'read_uncommitted' && iso !== 'read_committed') throw new CliUsageError(`--isolation-level ${iso}: expected read_uncommitted | read_committed`);
  let keySeparator: Buffer;
  try {
    keySeparator = separator(str(v, 'key-separator') ?? '\\t');
  } catch (e) {
    throw new CliUsageError(`--key-separator: ${(e as Error).message}`);
  }
  return {
    values: v,
    settings: {
      topic, group, start,
      partition: int(v, 'partition', 0, 2 ** 31 - 1),
      maxMessages: int(v, 'max-messages', 1),
      timeoutMs: int(v, 'timeout-ms', 1),
      json: v.json === true,
      text: {
        keySeparator, printKey: v['print-key'] === true, printHeaders: v['print-headers'] === true,
        printPartition: v['print-partition'] === true, printOffset: v['print-offset'] === true, printTimestamp: v['print-timestamp'] === true,
      },
      isolationLevel: iso === 'read_committed' ? 1 : 0,
    },
  };
}

const COMMIT_INTERVAL_MS = 5000;

export async function consumeCommand(args: string[]): Promise<void> {
  const { settings: s, values } = consumeSettings(args);
  const fetchOptions: FetchOptions = {
    maxWaitMs: 500, partitionMaxBytes: 8 << 20, maxBytes: 64 << 20, isolationLevel: s.isolationLevel,
    reset: s.start === EARLIEST ? EARLIEST : LATEST,
  };
  let count = 0;
  let done = false;
  let lastRecordAt = Date.now();
  let fetcher: Fetcher | null = null;
  const finish = (): void => {
    done = true;
    fetcher?.stop();
  };
  const output = new Output();
  const deliver = (r: RecordView): void => {
    if (s.json) writeJson(output, r);
    else writeText(output, r, s.text);
    count++;
    lastRecordAt = Date.now();
    if (s.maxMessages !== undefined && count >= s.maxMessages) finish();
  };
  const flush = async (): Promise<void> => {
    if (output.empty) return;
    const b = output.take();
    if (b.length > 0) await new Promise<void>((resolve) => process.stdout.write(b, () => resolve()));
  };
  const onSignal = (): void => finish();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.stdout.on('error', finish); // EPIPE: the reader went away (| head)
  // --timeout-ms counts while records are fetched (not while joining a group)
  const idle = s.timeoutMs === undefined ? null : setInterval(() => { if (fetcher && Date.now() - lastRecordAt >= s.timeoutMs!) finish(); }, Math.min(100, s.timeoutMs));
  try {
    await withClient(values, async (client) => {
      const topic = await client.topic(s.topic);
      if (s.partition !== undefined && s.partition >= topic.partitions.length) throw new CliUsageError(`--partition ${s.partition}: topic ${s.topic} has ${topic.partitions.length} partitions`);
      if (s.group === undefined) {
        const parts = s.partition !== undefined ? [s.partition] : topic.partitions.map((p) => p.partition);
        fetcher = new Fetcher(client, topic, new Map(parts.map((p) => [p, s.start])), fetchOptions);
        lastRecordAt = Date.now();
        if (!done) await fetcher.run(deliver, flush);
        await flush();
        return;
      }
      await consumeInGroup(client, s, s.group, fetchOptions, deliver, flush, (f) => { fetcher = f; lastRecordAt = Date.now(); if (done) f.stop(); }, () => done);
    });
  } finally {
    if (idle) clearInterval(idle);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.stderr.write(`Processed a total of ${count} messages\n`);
  }
}

async function consumeInGroup(
  client: KafkaClient, s: ConsumeSettings, groupId: string, o: FetchOptions, deliver: (r: RecordView) => void,
  flush: () => Promise<void>, started: (f: Fetcher) => void, done: () => boolean,
): Promise<void> {
  const member = new GroupMember(client, groupId, [s.topic], { sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 30_000, heartbeatIntervalMs: 3000 });
  try {
    while (!done()) {
      const assignment = await member.join();
      const mine = assignment.get(s.topic) ?? [];
      const committed = await member.committed(s.topic, mine);
      const topic = await client.topic(s.topic);
      const fetcher = new Fetcher(client, topic, new Map(mine.map((p) => [p, (committed.get(p) ?? -1) >= 0 ? committed.get(p)! : o.reset])), o);
      member.onRebalance = () => fetcher.stop();
      started(fetcher);
      let lastCommit = Date.now();
      const afterResponse = async (): Promise<void> => {
        await flush();
        if (Date.now() - lastCommit >= COMMIT_INTERVAL_MS && !member.rebalance) {
          lastCommit = Date.now();
          await member.commit(s.topic, fetcher.positions);
        }
      };
      await fetcher.run(deliver, afterResponse);
      await flush();
      if (!member.rebalance) await member.commit(s.topic, fetcher.positions);
    }
  } finally {
    await member.leave().catch(() => undefined);
  }
}
