// Shared helpers for the client interop tests in this folder (not a test file).
//
// - run():           spawn a tool, collect stdout as raw bytes, enforce a timeout.
// - kcatConsume():   read a whole topic back with `kcat -C -e -J -o beginning` and
//                    recover every key/value/header byte exactly (see below).
// - kafkajsCodecs(): register snappy / lz4 / zstd codecs with KafkaJS, built on
//                    the napi compression packages the project already depends on.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { zstdCompressSync, zstdDecompressSync } from 'node:zlib';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const VENV_PYTHON = resolve(REPO_ROOT, '.cache/venv/bin/python');

export function uniqueTopic(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}

export interface RunResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

export function run(
  cmd: string,
  args: string[],
  opts: { input?: Buffer | string; timeoutMs?: number; cwd?: string } = {},
): Promise<RunResult> {
  return new Promise((resolveP, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd ?? REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs ?? 60_000);
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const stderr = Buffer.concat(err).toString('utf8');
      if (timedOut) {
        reject(new Error(`${cmd} ${args.join(' ')} timed out after ${opts.timeoutMs ?? 60_000}ms\n${stderr}`));
        return;
      }
      resolveP({ code, stdout: Buffer.concat(out), stderr });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
  });
}

export async function requireKcat(): Promise<void> {
  try {
    const r = await run('kcat', ['-V'], { timeoutMs: 10_000 });
    if (r.code !== 0) throw new Error(r.stderr);
  } catch (e) {
    throw new Error(`kcat is not installed (run test/setup/install.sh): ${String(e)}`);
  }
}

export function requireVenvPython(): string {
  if (!existsSync(VENV_PYTHON)) {
    throw new Error(`${VENV_PYTHON} missing (run test/setup/install.sh to create the venv with confluent-kafka)`);
  }
  return VENV_PYTHON;
}

export interface ReadRecord {
  partition: number;
  offset: number;
  tstype: string;
  ts: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: Array<[string, Buffer | null]>;
}

// kcat's -J writer (yajl) escapes '"', '\\' and control bytes < 0x20 but copies every
// other byte through raw, so binary keys/values come out as invalid UTF-8. Decoding
// stdout as latin1 maps each byte to one code point; JSON.parse then yields strings
// whose code points are exactly the original bytes, and Buffer.from(s, 'latin1')
// restores them. This gives a byte-exact reader without any extra dependency.
function latin1Bytes(s: string | null | undefined): Buffer | null {
  return s === null || s === undefined ? null : Buffer.from(s, 'latin1');
}

export function parseKcatJson(stdout: Buffer): ReadRecord[] {
  const text = stdout.toString('latin1');
  const recs: ReadRecord[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const o = JSON.parse(line) as {
      partition: number;
      offset: number;
      tstype: string;
      ts: number;
      key: string | null;
      payload: string | null;
      headers?: Array<string | null>;
    };
    const headers: Array<[string, Buffer | null]> = [];
    const h = o.headers ?? [];
    for (let i = 0; i < h.length; i += 2) {
      headers.push([Buffer.from(h[i] ?? '', 'latin1').toString('utf8'), latin1Bytes(h[i + 1])]);
    }
    recs.push({
      partition: o.partition,
      offset: o.offset,
      tstype: o.tstype,
      ts: o.ts,
      key: latin1Bytes(o.key),
      value: latin1Bytes(o.payload),
      headers,
    });
  }
  return recs;
}

/** Read every record of `topic` from the beginning to the current end (no consumer group). */
export async function kcatConsume(bootstrap: string, topic: string, extra: string[] = []): Promise<ReadRecord[]> {
  const r = await run(
    'kcat',
    ['-b', bootstrap, '-C', '-t', topic, '-o', 'beginning', '-e', '-J', '-q', '-m', '15', ...extra],
    { timeoutMs: 60_000 },
  );
  if (r.code !== 0) throw new Error(`kcat -C failed (${r.code}): ${r.stderr}`);
  return parseKcatJson(r.stdout);
}

export function byPartition(recs: ReadRecord[]): Map<number, ReadRecord[]> {
  const m = new Map<number, ReadRecord[]>();
  for (const r of recs) {
    const l = m.get(r.partition) ?? [];
    l.push(r);
    m.set(r.partition, l);
  }
  return m;
}

/** Render bytes for readable assertion diffs (hex keeps every byte visible). */
export function hex(b: Buffer | null): string | null {
  return b === null ? null : b.toString('hex');
}

// ---------------------------------------------------------------------------
// KafkaJS codecs.
//
// KafkaJS 2.2.4 only ships gzip. The npm codec packages are stale (kafkajs-lz4
// needs a node-gyp build of `lz4`@0.6, @kafkajs/zstd needs `cppzst`), so instead
// we adapt the napi packages the project already depends on, which install from
// prebuilt binaries: `snappy` and `lz4-napi`; zstd is Node's own (node:zlib).
//
// Snappy is emitted in the xerial/snappy-java *framed* format (what the Java
// client produces) on purpose: librdkafka and kcat produce raw snappy blocks, so
// together the suites cover both snappy flavours a broker must accept.
// ---------------------------------------------------------------------------

const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_CHUNK = 32 * 1024;

interface Encoder {
  buffer: Buffer;
}
interface KafkaJsCodec {
  compress(encoder: Encoder): Promise<Buffer>;
  decompress(buffer: Buffer): Promise<Buffer>;
}

const req = createRequire(import.meta.url);

function tryRequire(name: string): any {
  try {
    return req(name);
  } catch {
    return undefined;
  }
}

export function xerialSnappyCompress(snappy: any, data: Buffer): Buffer {
  const parts: Buffer[] = [XERIAL_MAGIC, Buffer.from([0, 0, 0, 1, 0, 0, 0, 1])];
  let off = 0;
  do {
    const chunk: Buffer = snappy.compressSync(data.subarray(off, off + XERIAL_CHUNK));
    const len = Buffer.alloc(4);
    len.writeUInt32BE(chunk.length);
    parts.push(len, chunk);
    off += XERIAL_CHUNK;
  } while (off < data.length);
  return Buffer.concat(parts);
}

function xerialSnappyDecompress(snappy: any, buf: Buffer): Buffer {
  if (buf.length < 16 || !buf.subarray(0, 8).equals(XERIAL_MAGIC)) return snappy.uncompressSync(buf) as Buffer;
  const out: Buffer[] = [];
  let off = 16;
  while (off < buf.length) {
    const len = buf.readUInt32BE(off);
    off += 4;
    out.push(snappy.uncompressSync(buf.subarray(off, off + len)) as Buffer);
    off += len;
  }
  return Buffer.concat(out);
}

/**
 * Registers every codec whose backing package is installed and returns the list of
 * usable KafkaJS codec names ('none' and 'gzip' are always available).
 */
export function kafkajsCodecs(kafkajs: { CompressionCodecs: Record<number, () => KafkaJsCodec>; CompressionTypes: Record<string, number> }): Set<string> {
  const { CompressionCodecs, CompressionTypes } = kafkajs;
  const have = new Set<string>(['none', 'gzip']);
  const snappy = tryRequire('snappy');
  if (snappy) {
    CompressionCodecs[CompressionTypes.Snappy!] = () => ({
      compress: async (e) => xerialSnappyCompress(snappy, e.buffer),
      decompress: async (b) => xerialSnappyDecompress(snappy, b),
    });
    have.add('snappy');
  }
  const lz4 = tryRequire('lz4-napi');
  if (lz4) {
    // Kafka's LZ4 is the standard LZ4 *frame* format.
    CompressionCodecs[CompressionTypes.LZ4!] = () => ({
      compress: async (e) => (await lz4.compressFrame(e.buffer)) as Buffer,
      decompress: async (b) => (await lz4.decompressFrame(b)) as Buffer,
    });
    have.add('lz4');
  }
  // zstd: Node's own (node:zlib, libzstd).
  CompressionCodecs[CompressionTypes.ZSTD!] = () => ({
    compress: async (e) => zstdCompressSync(e.buffer),
    decompress: async (b) => zstdDecompressSync(b),
  });
  have.add('zstd');
  return have;
}
