// Protobuf schemas in the registry: .proto text and base64 FileDescriptorProto
// (what confluent-kafka's serializers send), references as imports, Google's
// well-known types, and the compatibility rules docs/schema-registry.md lists.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { parseProtobuf, protobufIncompatibility, ProtobufSchemaError } from '../../../broker/src/schema-registry/protobuf.js';

const require = createRequire(import.meta.url);
const pb = require('protobufjs') as typeof import('protobufjs');
const descriptor = require('protobufjs/ext/descriptor') as { FileDescriptorProto: import('protobufjs').Type };

const proto = (body: string, pkg = 'acme'): string => `syntax = "proto3";\npackage ${pkg};\n${body}\n`;
const V1 = proto('message Payment { int64 id = 1; double amount = 2; }');
const reads = (r: string, w: string): boolean => protobufIncompatibility(parseProtobuf(r), parseProtobuf(w)) === null;
const why = (r: string, w: string): string | null => protobufIncompatibility(parseProtobuf(r), parseProtobuf(w));

/** The base64 FileDescriptorProto of a .proto text, as a serializer would register it. */
function base64Of(text: string): string {
  const root = pb.parse(text, { keepCase: true }).root;
  const set = (root as unknown as { toDescriptor(e: string): { file: object[] } }).toDescriptor('proto3');
  return Buffer.from(descriptor.FileDescriptorProto.encode(set.file[0]!).finish()).toString('base64');
}

describe('protobuf schemas', () => {
  it('parses text and base64 descriptors; refuses syntax errors and unknown types', () => {
    expect([...parseProtobuf(V1).messages.keys()]).toEqual(['acme.Payment']);
    const b64 = base64Of(V1);
    const parsed = parseProtobuf(b64);
    expect([...parsed.messages.keys()]).toEqual(['acme.Payment']);
    expect(parsed.canonical).toBe(b64);
    expect(() => parseProtobuf('syntax = "proto3"; message X { int32 f = 1 }')).toThrow(ProtobufSchemaError);
    expect(() => parseProtobuf(proto('message X { Nope f = 1; }'))).toThrow(/no such Type or Enum 'Nope'/);
  });

  it('resolves imports through references, and Google\'s well-known types by themselves', () => {
    const user = proto('import "address.proto";\nimport "google/protobuf/timestamp.proto";\nmessage User { Address home = 1; google.protobuf.Timestamp since = 2; }');
    expect(() => parseProtobuf(user)).toThrow(/Address/);
    const parsed = parseProtobuf(user, [{ name: 'address.proto', schema: proto('message Address { string city = 1; }') }]);
    // the schema's own messages only, not its references'
    expect([...parsed.messages.keys()]).toEqual(['acme.User']);
  });

  it('a base64 descriptor resolves its imports too (a serializer sends one importing google/protobuf/timestamp.proto)', () => {
    const file = { name: 'user.proto', package: 'acme', syntax: 'proto3', dependency: ['google/protobuf/timestamp.proto', 'address.proto'], messageType: [{ name: 'User', field: [
      { name: 'since', number: 1, label: 1, type: 11, typeName: '.google.protobuf.Timestamp' },
      { name: 'home', number: 2, label: 1, type: 11, typeName: '.acme.Address' },
    ] }] };
    const b64 = Buffer.from(descriptor.FileDescriptorProto.encode(descriptor.FileDescriptorProto.fromObject(file)).finish()).toString('base64');
    expect(() => parseProtobuf(b64)).toThrow(/Address/);
    const parsed = parseProtobuf(b64, [{ name: 'address.proto', schema: base64Of(proto('message Address { string city = 1; }')) }]);
    expect(parsed.messages.get('acme.User')!.fields['since']!.resolvedType!.fullName).toBe('.google.protobuf.Timestamp');
    expect(parsed.messages.get('acme.User')!.fields['home']!.resolvedType!.fullName).toBe('.acme.Address');
  });

  it('adding and removing fields is compatible; changing a field number\'s type or label is not', () => {
    const v2 = proto('message Payment { int64 id = 1; double amount = 2; string note = 3; }');
    expect(reads(v2, V1)).toBe(true);
    expect(reads(V1, v2)).toBe(true);
    expect(why(proto('message Payment { int64 id = 1; string amount = 2; }'), V1)).toMatch(/field 2 changed from singular double to singular string/);
    expect(why(proto('message Payment { int64 id = 1; repeated double amount = 2; }'), V1)).toMatch(/field 2 changed/);
    expect(why(proto('message Other { int64 id = 1; }'), V1)).toMatch(/message acme.Payment removed/);
    expect(why(proto('message Payment { int64 id = 1; double amount = 2; }', 'other'), V1)).toMatch(/removed/);
    // a proto3 optional field is not a oneof move; a real oneof is
    expect(reads(proto('message Payment { int64 id = 1; optional double amount = 2; }'), V1)).toBe(true);
    expect(why(proto('message Payment { int64 id = 1; oneof o { double amount = 2; string text = 3; } }'), V1)).toMatch(/into oneof o/);
  });

  it('named types compare by full name; proto2 required fields may be neither added nor removed', () => {
    const a = proto('message A { int32 x = 1; } message B { int32 y = 1; } message M { A f = 1; }');
    const b = proto('message A { int32 x = 1; } message B { int32 y = 1; } message M { B f = 1; }');
    expect(why(b, a)).toMatch(/from singular acme.A to singular acme.B/);
    const p2 = (body: string): string => `syntax = "proto2";\npackage acme;\n${body}`;
    expect(why(p2('message M { required int32 a = 1; required int32 b = 2; }'), p2('message M { required int32 a = 1; }'))).toMatch(/required field b \(2\) added/);
    expect(why(p2('message M { required int32 a = 1; }'), p2('message M { required int32 a = 1; required int32 b = 2; }'))).toMatch(/required field b \(2\) removed/);
  });
});
