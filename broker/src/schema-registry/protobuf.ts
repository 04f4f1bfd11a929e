// Protobuf compatibility for the registry (schemas parse with
// common/schemas/protobuf-schema.ts: .proto text or a base64 FileDescriptorProto,
// every type resolved through references or Google's well-known types).
// Compatibility covers Confluent's main Protobuf rules (docs/schema-registry.md
// lists them).
import type * as PB from 'protobufjs';
import { pb, type ParsedProtobuf } from '../../../common/schemas/protobuf-schema.js';

export { parseProtobuf, ProtobufSchemaError, type ParsedProtobuf } from '../../../common/schemas/protobuf-schema.js';

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
