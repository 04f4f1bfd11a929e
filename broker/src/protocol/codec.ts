// The one codec engine: interprets MessageDef data for any version. Each
// (message, version) pair is compiled once into a plan of fields in wire order.
import type { FieldDef, MessageDef } from './schema.js';
import type { Decoded, Encodable } from './typed.js';
import { inVersions, parseVersions } from './versions.js';
import { Reader } from './reader.js';
import { Writer } from './writer.js';
import { ProtocolError } from '../../../common/errors.js';
import { uuidFromBytes, uuidToBytes, ZERO_UUID } from './uuid.js';

type Obj = Record<string, any>;

interface Plan {
  flexible: boolean;
  regular: Step[];
  tagged: Map<number, Step>;
  taggedOrder: Step[];
  /** Fields absent in this version, filled with their defaults on decode. */
  absent: Step[];
}

interface Step {
  key: string;
  type: string; // element type for arrays
  array: boolean;
  nullable: boolean;
  tag: number;
  struct?: Plan;
  def: FieldDef;
}

const plans = new WeakMap<object, Map<number, Plan>>();

export function camel(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

function isStructType(t: string): boolean {
  return !['int8', 'int16', 'int32', 'int64', 'uint16', 'float64', 'bool', 'string', 'bytes', 'uuid', 'records'].includes(t);
}

function compile(fields: readonly FieldDef[], version: number, flexible: boolean): Plan {
  const plan: Plan = { flexible, regular: [], tagged: new Map(), taggedOrder: [], absent: [] };
  for (const def of fields) {
    const array = def.type.startsWith('[]');
    const type = array ? def.type.slice(2) : def.type;
    const step: Step = {
      key: camel(def.name),
      type,
      array,
      nullable: inVersions(def.nullableVersions, version),
      tag: def.tag ?? -1,
      def,
    };
    if (isStructType(type)) {
      if (!def.fields) throw new Error(`struct field ${def.name} has no fields`);
      step.struct = compile(def.fields, version, flexible);
    }
    const present = inVersions(def.versions, version);
    const tagged = flexible && def.taggedVersions !== undefined && inVersions(def.taggedVersions, version);
    if (!present) plan.absent.push(step);
    else if (tagged) {
      plan.absent.push(step);
      plan.tagged.set(step.tag, step);
      plan.taggedOrder.push(step);
    } else plan.regular.push(step);
  }
  plan.taggedOrder.sort((a, b) => a.tag - b.tag);
  return plan;
}

export function planFor(msg: MessageDef, version: number): Plan {
  let byVersion = plans.get(msg);
  if (!byVersion) plans.set(msg, (byVersion = new Map()));
  let plan = byVersion.get(version);
  if (!plan) {
    const valid = parseVersions(msg.validVersions);
    if (version < valid.min || version > valid.max) throw new ProtocolError(`${msg.name} v${version} is not a valid version`);
    plan = compile(msg.fields, version, inVersions(msg.flexibleVersions, version));
    byVersion.set(version, plan);
  }
  return plan;
}

export function isFlexible(msg: MessageDef, version: number): boolean {
  return inVersions(msg.flexibleVersions, version);
}

// ---------------------------------------------------------------- defaults

function defaultOf(step: Step): unknown {
  const d = step.def.default;
  if (d !== undefined) return Array.isArray(d) ? [...d] : d;
  if (step.array) return [];
  if (step.struct) return defaultStruct(step.struct);
  switch (step.type) {
    case 'bool': return false;
    case 'string': return '';
    case 'bytes': return Buffer.alloc(0);
    case 'records': return null;
    case 'uuid': return ZERO_UUID;
    default: return 0;
  }
}

function defaultStruct(plan: Plan): Obj {
  const o: Obj = {};
  for (const s of plan.regular) o[s.key] = defaultOf(s);
  for (const s of plan.absent) o[s.key] = defaultOf(s);
  return o;
}

// ---------------------------------------------------------------- decode

/** Decodes one message; every field of the definition is present (typed.ts Decoded says so). */
export function decode<M extends MessageDef>(msg: M, version: number, r: Reader): Decoded<M> {
  // The plan was compiled from msg's own fields, so the object has the shape Decoded<M> derives from them.
  return decodeStruct(r, planFor(msg, version)) as Decoded<M>;
}

function decodeStruct(r: Reader, plan: Plan): Obj {
  const o: Obj = {};
  for (const s of plan.absent) o[s.key] = defaultOf(s);
  for (const s of plan.regular) o[s.key] = decodeField(r, s, plan.flexible);
  if (plan.flexible) readTagged(r, plan, o);
  return o;
}

function readTagged(r: Reader, plan: Plan | null, o: Obj | null): void {
  const count = r.uvarint();
  for (let i = 0; i < count; i++) {
    const tag = r.uvarint();
    const size = r.uvarint();
    const step = plan?.tagged.get(tag);
    if (!step || !o) {
      r.slice(size); // unknown tags are skipped
      continue;
    }
    const sub = new Reader(r.buf, r.offset, r.offset + size);
    if (sub.end > r.end) throw new ProtocolError('tagged field overruns its message');
    o[step.key] = decodeField(sub, step, true);
    r.offset += size;
  }
}

/** Skip a tagged-field section we have no plan for (e.g. in headers). */
export function skipTaggedFields(r: Reader): void {
  readTagged(r, null, null);
}

function readLength(r: Reader, flexible: boolean, compactArray: boolean): number {
  if (flexible) return r.uvarint() - 1;
  return compactArray ? r.int32() : r.int16();
}

function decodeField(r: Reader, s: Step, flexible: boolean): unknown {
  if (!s.array) return s.struct ? decodeNestedStruct(r, s, flexible) : decodeValue(r, s.type, s.nullable, flexible);
  const n = flexible ? r.uvarint() - 1 : r.int32();
  if (n < 0) {
    if (!s.nullable) throw new ProtocolError(`null array for non-nullable ${s.def.name}`);
    return null;
  }
  if (n > r.remaining()) throw new ProtocolError(`array ${s.def.name} claims ${n} elements, ${r.remaining()} bytes left`);
  const out = new Array(n);
  if (s.struct) for (let i = 0; i < n; i++) out[i] = decodeStruct(r, s.struct);
  else for (let i = 0; i < n; i++) out[i] = decodeValue(r, s.type, false, flexible);
  return out;
}

function decodeNestedStruct(r: Reader, s: Step, flexible: boolean): Obj | null {
  if (s.nullable && r.int8() < 0) return null;
  return decodeStruct(r, s.struct!);
}

function decodeValue(r: Reader, type: string, nullable: boolean, flexible: boolean): unknown {
  switch (type) {
    case 'int8': return r.int8();
    case 'int16': return r.int16();
    case 'uint16': return r.uint16();
    case 'int32': return r.int32();
    case 'int64': return r.int64();
    case 'float64': return r.float64();
    case 'bool': return r.bool();
    case 'uuid': return uuidFromBytes(r.uuid());
    case 'string': {
      const n = readLength(r, flexible, false);
      if (n < 0) {
        if (!nullable) throw new ProtocolError('null string for a non-nullable field');
        return null;
      }
      return r.utf8(n);
    }
    case 'bytes':
    case 'records': {
      const n = flexible ? r.uvarint() - 1 : r.int32();
      if (n < 0) {
        if (!nullable) throw new ProtocolError('null bytes for a non-nullable field');
        return null;
      }
      return r.slice(n);
    }
    default:
      throw new ProtocolError(`unknown type ${type}`);
  }
}

// ---------------------------------------------------------------- encode

export function encode<M extends MessageDef>(msg: M, version: number, value: Encodable<M>, w: Writer = new Writer()): Writer {
  encodeStruct(w, planFor(msg, version), value as Obj);
  return w;
}

function encodeStruct(w: Writer, plan: Plan, o: Obj): void {
  for (const s of plan.regular) encodeField(w, s, o[s.key], plan.flexible);
  if (!plan.flexible) return;
  const present: Array<[Step, unknown]> = [];
  for (const s of plan.taggedOrder) {
    const v = o[s.key];
    if (v !== undefined && !isDefault(s, v)) present.push([s, v]);
  }
  w.uvarint(present.length);
  for (const [s, v] of present) {
    const sub = new Writer(64);
    encodeField(sub, s, v, true);
    const body = sub.toBuffer();
    w.uvarint(s.tag).uvarint(body.length).bytes(body);
  }
}

function isDefault(s: Step, v: unknown): boolean {
  const d = defaultOf(s);
  if (Array.isArray(v)) return v.length === 0 && Array.isArray(d) && d.length === 0;
  if (v === null || typeof v !== 'object') return v === d;
  // a struct equal to the default struct is not written (as Kafka does)
  if (s.struct && !s.array && !Buffer.isBuffer(v)) return structIsDefault(s.struct, v as Obj);
  return false;
}

function structIsDefault(plan: Plan, o: Obj): boolean {
  for (const s of plan.regular) if (o[s.key] !== undefined && !isDefault(s, o[s.key])) return false;
  for (const s of plan.taggedOrder) if (o[s.key] !== undefined && !isDefault(s, o[s.key])) return false;
  return true;
}

function encodeField(w: Writer, s: Step, v: unknown, flexible: boolean): void {
  if (v === undefined) v = defaultOf(s);
  if (!s.array) {
    if (s.struct) {
      if (s.nullable) {
        if (v === null) { w.int8(-1); return; }
        w.int8(1);
      }
      encodeStruct(w, s.struct, (v ?? defaultStruct(s.struct)) as Obj);
      return;
    }
    encodeValue(w, s.type, v, s.nullable, flexible);
    return;
  }
  if (v === null) {
    if (!s.nullable) throw new ProtocolError(`null for non-nullable array ${s.def.name}`);
    if (flexible) w.uvarint(0); else w.int32(-1);
    return;
  }
  const arr = v as unknown[];
  if (flexible) w.uvarint(arr.length + 1); else w.int32(arr.length);
  if (s.struct) for (const e of arr) encodeStruct(w, s.struct, e as Obj);
  else for (const e of arr) encodeValue(w, s.type, e, false, flexible);
}

function encodeValue(w: Writer, type: string, v: unknown, nullable: boolean, flexible: boolean): void {
  switch (type) {
    case 'int8': w.int8(v as number); return;
    case 'int16': w.int16(v as number); return;
    case 'uint16': w.uint16(v as number); return;
    case 'int32': w.int32(v as number); return;
    case 'int64': w.int64(v as number | bigint); return;
    case 'float64': w.float64(v as number); return;
    case 'bool': w.bool(v as boolean); return;
    case 'uuid': w.bytes(uuidToBytes((v as string | null) ?? ZERO_UUID)); return;
    case 'string': {
      if (v === null) {
        if (!nullable) throw new ProtocolError('null for a non-nullable string');
        if (flexible) w.uvarint(0); else w.int16(-1);
        return;
      }
      const str = String(v);
      const n = Buffer.byteLength(str);
      if (flexible) w.uvarint(n + 1); else w.int16(n);
      w.utf8(str, n);
      return;
    }
    case 'bytes':
    case 'records': {
      if (v === null) {
        if (!nullable) throw new ProtocolError('null for non-nullable bytes');
        if (flexible) w.uvarint(0); else w.int32(-1);
        return;
      }
      const b = v as Uint8Array | Buffer[];
      if (Array.isArray(b)) {
        // records given as a list of stored batches: written back to back, uncopied
        let n = 0;
        for (const c of b) n += c.length;
        if (flexible) w.uvarint(n + 1); else w.int32(n);
        for (const c of b) w.bytes(c);
        return;
      }
      if (flexible) w.uvarint(b.length + 1); else w.int32(b.length);
      w.bytes(b);
      return;
    }
    default:
      throw new ProtocolError(`unknown type ${type}`);
  }
}
