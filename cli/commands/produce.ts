// `runnel produce TOPIC`: one record per stdin line (bytes as read; the
// newline ends the record), batched per partition, acks=all. Keys with
// --parse-key / --key-separator, headers with --header k=v (every record) or
// --parse-headers (per line, kafka-console-producer's parse.headers format).
import { CODEC_NAMES } from '../../common/record-batch/layout.js';
import { CliUsageError } from '../kafka/errors.js';
import { LineError, LineSplitter, parseLine, separator, type LineFormat } from '../kafka/lines.js';
import { partitionForKey } from '../kafka/partitioner.js';
import { Producer } from '../kafka/producer.js';
import { CONNECTION_USAGE, int, list, nameArg, pairs, parse, str, withClient, type Values } from './common.js';

export const PRODUCE_USAGE = `usage: runnel produce TOPIC [options] < lines

Produces one record per input line (stdin), acks=all, in batches per partition. The bytes of a
line are sent as they are (no character decoding); a newline ends the record, a line may be empty.
Without --partition a keyed record goes to murmur2(key) % partitions (the Java client's default
partitioner), records without a key fill one partition's batch after another (sticky).
A missing topic is created on first use where the broker's auto.create.topics.enable allows it.

Line format: [HEADERS <headers-delimiter>] [KEY <key-separator>] VALUE
  with --parse-headers, HEADERS is k:v,k2:v2 (kafka-console-producer's parse.headers format).
Separators take the escapes \\t \\n \\r \\0 \\\\.

options:
  --parse-key               each line starts with a key and the key separator
  --key-separator S         between key and value (default \\t, a tab); implies --parse-key
  --header k=v              a header on every record; repeatable
  --parse-headers           each line starts with its headers and the headers delimiter
  --headers-delimiter S     after the headers (default \\t)
  --headers-separator S     between headers (default ,)
  --headers-key-separator S between a header's key and value (default :)
  --partition P             every record to partition P
  --compression C           none | gzip | snappy | lz4 | zstd (default none)
  --batch-size BYTES        records per batch and partition, uncompressed (default 1000000)
  --linger-ms MS            how long a batch waits to fill (default 5)
  --request-timeout-ms MS   Produce timeout (default 30000)
${CONNECTION_USAGE}`;

const OPTIONS = {
  'parse-key': { type: 'boolean' },
  'key-separator': { type: 'string' },
  header: { type: 'string', multiple: true },
  'parse-headers': { type: 'boolean' },
  'headers-delimiter': { type: 'string' },
  'headers-separator': { type: 'string' },
  'headers-key-separator': { type: 'string' },
  partition: { type: 'string' },
  compression: { type: 'string' },
  'batch-size': { type: 'string' },
  'linger-ms': { type: 'string' },
  'request-timeout-ms': { type: 'string' },
} as const;

export interface ProduceSettings {
  topic: string;
  format: LineFormat;
  extraHeaders: Array<[Buffer, Buffer]>;
  partition: number | undefined;
  codec: number;
  batchBytes: number;
  lingerMs: number;
  timeoutMs: number;
}

export function produceSettings(args: string[]): { settings: ProduceSettings; values: Values } {
  const { values: v, positionals } = parse(args, OPTIONS);
  const topic = nameArg(positionals, 'topic name', 0);
  const sep = (flag: string, dflt: string): Buffer => {
    try {
      return separator(str(v, flag) ?? dflt);
    } catch (e) {
      throw new CliUsageError(`--${flag}: ${(e as Error).message}`);
    }
  };
  const compression = (str(v, 'compression') ?? 'none').toLowerCase();
  const codec = (CODEC_NAMES as readonly string[]).indexOf(compression);
  if (codec < 0) throw new CliUsageError(`--compression ${compression}: expected ${CODEC_NAMES.join(' | ')}`);
  const parseKey = v['parse-key'] === true || str(v, 'key-separator') !== undefined;
  return {
    values: v,
    settings: {
      topic,
      format: {
        keySeparator: parseKey ? sep('key-separator', '\\t') : null,
        headers: v['parse-headers'] ? { delimiter: sep('headers-delimiter', '\\t'), separator: sep('headers-separator', ','), keySeparator: sep('headers-key-separator', ':') } : null,
      },
      extraHeaders: pairs(list(v, 'header'), 'header').map(([k, val]) => [Buffer.from(k, 'utf8'), Buffer.from(val, 'utf8')]),
      partition: int(v, 'partition', 0, 2 ** 31 - 1),
      codec,
      batchBytes: int(v, 'batch-size', 1, 64 << 20) ?? 1_000_000,
      lingerMs: int(v, 'linger-ms', 0, 60_000) ?? 5,
      timeoutMs: int(v, 'request-timeout-ms', 1, 2 ** 31 - 1) ?? 30_000,
    },
  };
}

export async function produceCommand(args: string[], input: AsyncIterable<Buffer> = process.stdin): Promise<void> {
  const { settings: s, values } = produceSettings(args);
  await withClient(values, async (client) => {
    // A missing topic is created where the broker allows it (auto.create.topics.enable), as kafka-console-producer and kcat do.
    const topic = await client.topic(s.topic, 10_000, true);
    if (s.partition !== undefined && s.partition >= topic.partitions.length) throw new CliUsageError(`--partition ${s.partition}: topic ${s.topic} has ${topic.partitions.length} partitions`);
    const producer = new Producer(client, topic, {
      codec: s.codec, batchBytes: s.batchBytes, lingerMs: s.lingerMs, timeoutMs: s.timeoutMs,
      bufferBytes: 32 << 20, maxInFlight: 5, retries: 5,
    });
    const line = (buf: Buffer, start: number, end: number): void => {
      const rec = parseLine(buf, start, end, s.format, splitter.lineNo);
      const p = s.partition ?? (rec.keyStart >= 0 ? partitionForKey(buf, rec.keyStart, rec.keyEnd, producer.partitions) : producer.sticky);
      producer.add(p, ts, buf, rec.keyStart, rec.keyEnd, rec.valueStart, rec.valueEnd, rec.headers, s.extraHeaders);
    };
    let ts = Date.now();
    const splitter = new LineSplitter();
    try {
      for await (const chunk of input) {
        ts = Date.now();
        splitter.push(chunk, line);
        await producer.room();
      }
      splitter.end(line);
    } catch (e) {
      // the lines before a malformed one are sent, then the command fails
      if (e instanceof LineError) await producer.flush();
      producer.abort(e as Error);
      throw e;
    }
    await producer.flush();
  });
}
