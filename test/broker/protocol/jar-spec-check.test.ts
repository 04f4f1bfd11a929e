// Checks the definitions whose Kafka specs are newer than the copy in
// shared/ (spec-check.test.ts skips them: the copy has only Kafka 4.0's early
// access version 0 of the share-group APIs, which 4.1 removed) against the
// message classes of the installed Kafka 4.x client jars: every version's
// fields, in order, with their types and nullability, as the Java client reads
// and writes them. Without the jars a developer's run skips with a note;
// under CI=true it fails instead.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ALL_APIS } from '../../../broker/src/protocol/messages/index.js';
import type { FieldDef, MessageDef } from '../../../broker/src/protocol/schema.js';
import { inVersions, parseVersions } from '../../../broker/src/protocol/versions.js';
import { JAVA_CP, JAVA_LIB } from '../../helpers/java.js';
import { REPO_ROOT } from '../../helpers/procs.js';
import { CHECKED_AGAINST_JARS } from './jar-checked.js';


const haveJars = fs.existsSync(JAVA_LIB) && fs.readdirSync(JAVA_LIB).some((f) => /^kafka-clients-4\./.test(f));
const inCi = ['true', '1'].includes((process.env.CI ?? '').toLowerCase());
const PRIMITIVES = new Set(['int8', 'int16', 'int32', 'int64', 'uint16', 'float64', 'bool', 'string', 'bytes', 'uuid', 'records']);
const snake = (n: string): string => n.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/([A-Z])([A-Z][a-z])/g, '$1_$2').toLowerCase();

/** Our definition's lines, in KafkaSchemas.java's form. */
function ourLines(msg: MessageDef): string[] {
  const out: string[] = [];
  const { min, max } = parseVersions(msg.validVersions);
  out.push(`${msg.name} range ${min} ${max}`);
  const walk = (head: string, prefix: string, fields: readonly FieldDef[], v: number): void => {
    for (const f of fields) {
      if (!inVersions(f.versions, v) || (f.taggedVersions !== undefined && inVersions(f.taggedVersions, v))) continue;
      const p = prefix ? `${prefix}.${snake(f.name)}` : snake(f.name);
      const el = f.type.startsWith('[]') ? f.type.slice(2) : f.type;
      const struct = !PRIMITIVES.has(el);
      const type = f.type.startsWith('[]') ? `[]${struct ? 'struct' : el}` : struct ? 'struct' : el;
      const nullable = el === 'records' && !f.type.startsWith('[]') ? 0 : inVersions(f.nullableVersions, v) ? 1 : 0;
      out.push(`${head} ${p} ${type} ${nullable}`);
      if (struct) walk(head, p, f.fields ?? [], v);
    }
  };
  for (let v = min; v <= max; v++) walk(`${msg.name} v${v}`, '', msg.fields, v);
  return out;
}

describe.skipIf(!haveJars)('definitions newer than shared/ specs match the Kafka 4.x client jars', () => {
  const messages = ALL_APIS.flatMap((a) => [a.request, a.response]).filter((m) => CHECKED_AGAINST_JARS.has(m.name));
  let dump: string[] = [];
  it('the Kafka classes are dumped', () => {
    const classes = fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-schemas-'));
    execFileSync('javac', ['-nowarn', '-d', classes, '-cp', JAVA_CP, path.join(REPO_ROOT, 'test/broker/protocol/java/KafkaSchemas.java')]);
    dump = execFileSync('java', ['-cp', `${classes}${path.delimiter}${JAVA_CP}`, 'KafkaSchemas', ...messages.map((m) => m.name)], { encoding: 'utf8' }).trim().split('\n');
    expect(messages.length).toBe(CHECKED_AGAINST_JARS.size);
  }, 60_000);
  for (const name of CHECKED_AGAINST_JARS) {
    it(name, () => {
      const msg = messages.find((m) => m.name === name)!;
      const theirs = dump.filter((l) => l.startsWith(`${name} `));
      expect(theirs.length).toBeGreaterThan(2);
      expect(ourLines(msg)).toEqual(theirs);
    });
  }
});

describe.skipIf(haveJars)('definitions vs the Kafka client jars', () => {
  it(inCi ? 'CI=true: fails when the jars are missing' : 'skips with a note when the jars are missing', (ctx) => {
    if (inCi) expect.fail(`Kafka jars not found in ${JAVA_LIB}`);
    ctx.skip(`Kafka jars not found in ${JAVA_LIB}`);
  });
});
