// Protobuf schemas as the Schema Registry stores them, parsed with protobufjs:
// .proto text or, as confluent-kafka's serializers send it, a base64
// FileDescriptorProto, after the schemas it references (Confluent references,
// named by the import path that uses them); Google's well-known types resolve
// without a reference. Used by the broker's registry (validation,
// compatibility) and the archiver (typed lake columns).
import { createRequire } from 'node:module';
import type * as PB from 'protobufjs';

const require = createRequire(import.meta.url);
export const pb = require('protobufjs') as typeof PB;
// Root.fromDescriptor and the descriptor messages (FileDescriptorProto, FileDescriptorSet)
const descriptor = require('protobufjs/ext/descriptor') as { FileDescriptorProto: PB.Type; FileDescriptorSet: PB.Type };
const fromDescriptor = (pb.Root as unknown as { fromDescriptor(d: object, o?: object): PB.Root }).fromDescriptor;

export class ProtobufSchemaError extends Error {}

export interface ParsedProtobuf {
  /** The text stored: the .proto text as given (trimmed), or the base64 descriptor without whitespace. */
  canonical: string;
  /**
   * The messages the schema itself defines (not those of its references), by
   * full name, in declaration order, each before its nested messages: the
   * order Confluent's message indexes count in (protobufMessageAt).
   */
  messages: Map<string, PB.Type>;
}

const BASE64 = /^[A-Za-z0-9+/\s]+=*\s*$/;

/**
 * Runs `f` with Root#resolveAll a no-op: Root.fromDescriptor resolves the file
 * on its own, where the types it imports (references, well-known types) are
 * missing; they are resolved later, in the root that has them all.
 */
function unresolved<T>(f: () => T): T {
  const proto = pb.Root.prototype as unknown as { resolveAll(): unknown };
  const resolveAll = proto.resolveAll;
  proto.resolveAll = function (this: unknown) { return this; };
  try {
    return f();
  } finally {
    proto.resolveAll = resolveAll;
  }
}

/** Adds one schema (text or base64 descriptor) to `root`; returns the files it imports. */
function load(root: PB.Root, text: string, what: string): string[] {
  try {
    if (BASE64.test(text)) {
      const bytes = Buffer.from(text.replace(/\s/g, ''), 'base64');
      const file = descriptor.FileDescriptorProto.decode(bytes) as unknown as { dependency?: string[]; messageType?: unknown[]; name?: string };
      const set = unresolved(() => fromDescriptor({ file: [{ ...file, dependency: [] }] }, { keepCase: true }));
      root.addJSON((set.toJSON() as { nested?: Record<string, PB.AnyNestedObject> }).nested ?? {});
      return file.dependency ?? [];
    }
    return pb.parse(text, root, { keepCase: true }).imports ?? [];
  } catch (e) {
    throw new ProtobufSchemaError(`Invalid schema ${what}, details: ${(e as Error).message}`);
  }
}

function types(ns: PB.NamespaceBase, out = new Map<string, PB.Type>()): Map<string, PB.Type> {
  for (const o of ns.nestedArray) {
    if (o instanceof pb.Type) out.set(o.fullName.replace(/^\./, ''), o);
    if (o instanceof pb.Namespace || o instanceof pb.Type) types(o as PB.NamespaceBase, out);
  }
  return out;
}

/** Parses a Protobuf schema after the schemas it references (each named by the import path that uses it). */
export function parseProtobuf(text: string, refs: ReadonlyArray<{ name: string; schema: string }> = []): ParsedProtobuf {
  const root = new pb.Root();
  const imports = new Set<string>();
  for (const r of refs) for (const i of load(root, r.schema, `reference ${r.name}`)) imports.add(i);
  const before = new Set(types(root).keys());
  for (const i of load(root, text, text)) imports.add(i);
  const mine = new Map([...types(root)].filter(([name]) => !before.has(name)));
  const given = new Set(refs.map((r) => r.name));
  for (const i of imports) {
    const common = i.startsWith('google/protobuf/') ? pb.common.get(i) : null;
    if (common && !given.has(i)) root.addJSON((common as { nested: Record<string, PB.AnyNestedObject> }).nested);
  }
  try {
    root.resolveAll();
  } catch (e) {
    throw new ProtobufSchemaError(`Invalid schema ${text}, details: ${(e as Error).message}`);
  }
  return { canonical: BASE64.test(text) ? text.replace(/\s/g, '') : text.trim(), messages: mine };
}

/**
 * The message a Confluent message-index path names: [i] is the schema's i-th
 * top-level message, [i, j] the j-th message nested in it, and so on; null
 * when the path points past them.
 */
export function protobufMessageAt(p: ParsedProtobuf, path: readonly number[]): PB.Type | null {
  let level = [...p.messages.values()].filter((t) => !(t.parent instanceof pb.Type));
  let t: PB.Type | null = null;
  for (const i of path) {
    t = level[i] ?? null;
    if (!t) return null;
    level = t.nestedArray.filter((o): o is PB.Type => o instanceof pb.Type);
  }
  return t;
}
