// Protobuf schemas for the registry, with protobufjs: a schema is .proto
// text or, as confluent-kafka's serializers send it, a base64
// FileDescriptorProto. It must parse and every type it names must resolve
// (through its references, whose names are its imports, or Google's
// well-known types). Compatibility covers Confluent's main Protobuf rules
// (docs/schema-registry.md lists them).
import { createRequire } from 'node:module';
import type * as PB from 'protobufjs';

const require = createRequire(import.meta.url);
const pb = require('protobufjs') as typeof PB;
// Root.fromDescriptor and the descriptor messages (FileDescriptorProto, FileDescriptorSet)
const descriptor = require('protobufjs/ext/descriptor') as { FileDescriptorProto: PB.Type; FileDescriptorSet: PB.Type };
const fromDescriptor = (pb.Root as unknown as { fromDescriptor(d: object, o?: object): PB.Root }).fromDescriptor;

export class ProtobufSchemaError extends Error {}

export interface ParsedProtobuf {
  /** The text stored: the .proto text as given (trimmed), or the base64 descriptor without whitespace. */
  canonical: string;
  /** The messages the schema itself defines, by full name (not those of its references). */
  messages: Map<string, PB.Type>;
}

const BASE64 = /^[A-Za-z0-9+/\s]+=*\s*$/;

/** Adds one schema (text or base64 descriptor) to `root`; returns the files it imports. */
function load(root: PB.Root, text: string, what: string): string[] {
  try {
    if (BASE64.test(text)) {
      const bytes = Buffer.from(text.replace(/\s/g, ''), 'base64');
      const file = descriptor.FileDescriptorProto.decode(bytes) as unknown as { dependency?: string[]; messageType?: unknown[]; name?: string };
      const set = fromDescriptor({ file: [{ ...file, dependency: [] }] }, { keepCase: true });
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

function fieldKind(f: PB.Field): string {
  const label = f.repeated ? 'repeated' : f.map ? 'map' : 'singular';
  const key = f instanceof pb.MapField ? `<${(f as PB.MapField).keyType}>` : '';
  const type = f.resolvedType ? f.resolvedType.fullName.replace(/^\./, '') : f.type;
  return `${label}${key} ${type}`;
}

/** The oneof a field is part of, or null (proto3 `optional` fields' synthetic oneofs do not count). */
function oneofOf(f: PB.Field): string | null {
  const o = f.partOf;
  return o && !(o.oneof.length === 1 && o.name === `_${f.name}`) ? o.name : null;
}

/**
 * Why a reader of `reader` may fail on data written with `writer`, or null.
 * Checked, per message of the writer: it still exists in the reader (by full
 * name, so a package change removes them all); each field number both have
 * keeps its label (singular, repeated, map), its scalar type or the full
 * name of its message or enum type; no required field (proto2) is added or
 * removed; a field does not move in or out of a oneof. Fields added or
 * removed otherwise are compatible (readers skip unknown field numbers).
 */
export function protobufIncompatibility(reader: ParsedProtobuf, writer: ParsedProtobuf): string | null {
  for (const [name, w] of writer.messages) {
    const r = reader.messages.get(name);
    if (!r) return `message ${name} removed`;
    for (const wf of w.fieldsArray) {
      const rf = r.fieldsById[wf.id];
      if (!rf) {
        if (wf.required) return `${name}: required field ${wf.name} (${wf.id}) removed`;
        continue;
      }
      if (fieldKind(rf) !== fieldKind(wf)) return `${name}: field ${wf.id} changed from ${fieldKind(wf)} to ${fieldKind(rf)}`;
      if (rf.required !== wf.required) return `${name}: field ${wf.id} ${rf.required ? 'became' : 'is no longer'} required`;
      const ro = oneofOf(rf);
      const wo = oneofOf(wf);
      if (ro !== wo) return `${name}: field ${wf.id} moved ${ro ? `into oneof ${ro}` : `out of oneof ${wo}`}`;
    }
    for (const rf of r.fieldsArray) if (rf.required && !w.fieldsById[rf.id]) return `${name}: required field ${rf.name} (${rf.id}) added`;
  }
  return null;
}
