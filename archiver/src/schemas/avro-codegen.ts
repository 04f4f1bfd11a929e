// Generated Avro readers: one JS function per schema (as avsc generates its
// decoders), instead of a closure per field called through one megamorphic call
// site. Each mapped type (avro-arrow.ts) may give a code snippet (`gen`) that
// reads one value at the local `pos` of `buf` (bounded by `end`) into a
// builder; a type without one is read by its closure (`read`), with the
// cursor synced around the call. Snippets embed only numbers and the names of
// constants registered through the context (never schema text), and throw
// AvroDecodeError (`E`, `T()` for a truncated body) as the closures do.
import { AvroDecodeError, readInt, readLongInto, type Col, type Cursor } from './avro-columns.js';

/** What snippets use while generating: constants (by name) and fresh local names. */
export interface GenCtx {
  /** a constant's name in the generated code */
  k(v: unknown): string;
  /** a fresh local variable name */
  id(): string;
}

/** A mapped type's readers (avro-arrow.ts Mapped): its closure, and its snippet if it has one. */
export interface Readable {
  read(c: Cursor, col: Col): void;
  gen?: (b: string, ctx: GenCtx) => string;
}

/** Code reading one value of `m` into the builder held by variable `b`. */
export function genValue(m: Readable, b: string, ctx: GenCtx): string {
  if (m.gen) return m.gen(b, ctx);
  return `cur.pos = pos; ${ctx.k(m.read)}(cur, ${b}); pos = cur.pos;`;
}

/** Code assigning the zig-zag varint int / length at `pos` to the declared variable `v`. */
export function intInto(v: string): string {
  return `if (pos >= end) T(); ${v} = buf[pos];
    if (${v} < 0x80) { pos++; ${v} = (${v} >>> 1) ^ -(${v} & 1); } else { cur.pos = pos; ${v} = readInt(cur); pos = cur.pos; }`;
}

/** Code for a long (times `scale`) into the I64Col `b`: up to 7 varint bytes inline, longer ones exactly (readLongInto). */
export function longInto(b: string, scale: number, ctx: GenCtx): string {
  const [s, n, m, x, v] = [ctx.id(), ctx.id(), ctx.id(), ctx.id(), ctx.id()];
  return `{ const ${s} = pos; let ${n} = 0, ${m} = 1, ${x};
    do { if (pos >= end) T(); ${x} = buf[pos++]; ${n} += (${x} & 0x7f) * ${m}; ${m} *= 128; } while (${x} & 0x80 && pos - ${s} < 7);
    const ${v} = (${n} % 2 ? -(${n} + 1) / 2 : ${n} / 2) * ${scale};
    if (${x} & 0x80 || !Number.isSafeInteger(${v})) { cur.pos = ${s}; readLongInto(cur, ${b}, ${scale}); pos = cur.pos; } else ${b}.pushNumber(${v}); }`;
}

function truncated(): never {
  throw new AvroDecodeError('truncated');
}

/**
 * One function reading a whole body into `builders` (one per mapped type, in
 * order: a record's fields, or the one whole column), then checking that
 * nothing is left.
 */
export function genReader(ms: Readable[]): (cur: Cursor, builders: Col[]) => void {
  const consts: unknown[] = [];
  let n = 0;
  const ctx: GenCtx = {
    k: (v) => {
      consts.push(v);
      return `K${consts.length - 1}`;
    },
    id: () => `v${n++}`,
  };
  const body = ms.map((m, i) => genValue(m, `b${i}`, ctx)).join('\n');
  const src = `${consts.map((_, i) => `const K${i} = K[${i}];`).join('\n')}
return function read(cur, B) {
  const buf = cur.buf, end = cur.end; let pos = cur.pos;
  ${ms.map((_, i) => `const b${i} = B[${i}];`).join(' ')}
  ${body}
  cur.pos = pos;
  if (pos !== end) throw new E((end - pos) + ' bytes left after the record');
};`;
  // generated from the schema's structure only (see the header)
  const factory = new Function('K', 'T', 'E', 'readInt', 'readLongInto', src) as (...a: unknown[]) => (cur: Cursor, builders: Col[]) => void;
  return factory(consts, truncated, AvroDecodeError, readInt, readLongInto);
}
