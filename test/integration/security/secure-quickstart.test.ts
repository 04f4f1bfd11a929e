// The secured quick start (docs/security-quickstart.md, linked from the
// README), run as written: the shell blocks marked
// `<!-- test: secure-quickstart/N -->` are read from that file and run with
// bash in a fresh folder. Only the port changes (9094 -> a free one), and
// `kafka-configs.sh` / `kafka-acls.sh` are Kafka's own tool classes from the
// jars the tests use. The broker is `./runnel broker` with its embedded Redis.
// HOME is a folder of the test: the blocks write the keys and certificates to
// ~/.config/runnel/try-tls, never into the checkout (nor into `dir`, the folder
// the broker runs in).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, runCommand, spawnManaged, waitForPort, REPO_ROOT, type ManagedProcess } from '../../helpers/procs.js';
import { JAVA_CP, ensureJavaLib } from '../../helpers/java.js';
import kafkajs from 'kafkajs';

const { Kafka, logLevel } = kafkajs;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-secure-qs-'));
let broker: ManagedProcess | null = null;

afterAll(async () => {
  await broker?.stop(10_000).catch(() => undefined);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The file that holds this quick start (test/integration/quickstart.test.ts checks no other file has its markers). */
const DOC = path.join('docs', 'security-quickstart.md');

/** The blocks of this quick start, in order. */
function docBlocks(): string[] {
  const readme = fs.readFileSync(path.join(REPO_ROOT, DOC), 'utf8');
  const out: string[] = [];
  const re = /<!-- test: secure-quickstart\/(\d+)[^>]*-->\n```sh\n([\s\S]*?)\n```/g;
  for (let m = re.exec(readme); m; m = re.exec(readme)) out[Number(m[1]) - 1] = m[2]!;
  return out;
}

/** PATH entries for Kafka's shell tools, as the quick start calls them. */
function toolShims(): string {
  ensureJavaLib();
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  const shim = (name: string, cls: string) => {
    fs.writeFileSync(path.join(bin, name), `#!/usr/bin/env bash\nexec java -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp '${JAVA_CP}' ${cls} "$@"\n`, { mode: 0o755 });
  };
  shim('kafka-configs.sh', 'org.apache.kafka.tools.ConfigCommand');
  shim('kafka-acls.sh', 'org.apache.kafka.tools.AclCommand');
  fs.symlinkSync(path.join(REPO_ROOT, 'runnel'), path.join(dir, 'runnel'));
  return bin;
}

describe('docs/security-quickstart.md: secured quick start (SASL_SSL, a SCRAM user, one ACL)', () => {
  it('runs as written: alice produces and consumes `orders`; another topic and a wrong password are refused', async () => {
    const blocks = docBlocks();
    expect(blocks.length, DOC).toBe(3);
    const port = String(await freePort());
    const [certs, start, use] = blocks.map((b) => b!.replaceAll('9094', port)) as [string, string, string];
    const home = path.join(dir, 'home');
    fs.mkdirSync(home);
    const tlsDir = path.join(home, '.config', 'runnel', 'try-tls');
    const env = { ...process.env, HOME: home, PATH: `${toolShims()}:${process.env.PATH}` };

    const made = await runCommand('bash', ['-euo', 'pipefail', '-c', certs], { cwd: dir, env, timeoutMs: 60_000 });
    expect(made.code, made.stderr).toBe(0);
    expect(fs.readdirSync(tlsDir).sort()).toEqual(['broker.crt', 'broker.csr', 'broker.key', 'broker.pem', 'ca.key', 'ca.pem', 'ca.srl']);
    expect(fs.statSync(tlsDir).mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(dir).filter((f) => /\.(key|pem|crt)$/.test(f))).toEqual([]);

    broker = spawnManaged('secure-quickstart-broker', 'bash', ['-c', `exec ${start}`], { cwd: dir, env });
    await waitForPort(Number(port), { timeoutMs: 60_000 });

    const r = await runCommand('bash', ['-euo', 'pipefail', '-c', use], { cwd: dir, env, timeoutMs: 120_000 });
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('first order');

    // What the quick start says happens without the ACL, and with a wrong password.
    const alice = (password: string) => `-b 127.0.0.1:${port} -X security.protocol=SASL_SSL -X ssl.ca.location=${path.join(tlsDir, 'ca.pem')} -X sasl.mechanism=SCRAM-SHA-512 -X sasl.username=alice -X sasl.password=${password}`;
    const noAcl = await runCommand('bash', ['-c', `echo x | kcat ${alice('alice-secret')} -P -t payments`], { cwd: dir, env, timeoutMs: 30_000 });
    expect(noAcl.code).not.toBe(0);
    expect(noAcl.stderr).toContain('Topic authorization failed');
    const wrong = await runCommand('bash', ['-c', `kcat ${alice('not-her-password')} -L -m 10`], { cwd: dir, env, timeoutMs: 30_000 });
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('Authentication failed');

    // KafkaJS, the same user over the same listener (TLS with the quick start's CA, SCRAM-SHA-512).
    const kafka = new Kafka({
      clientId: 'secure-quickstart', brokers: [`127.0.0.1:${port}`], logLevel: logLevel.NOTHING,
      ssl: { ca: [fs.readFileSync(path.join(tlsDir, 'ca.pem'), 'utf8')] },
      sasl: { mechanism: 'scram-sha-512', username: 'alice', password: 'alice-secret' },
    });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'orders', messages: [{ value: 'second order' }] });
    await producer.disconnect();
    const read = await runCommand('bash', ['-c', `kcat ${alice('alice-secret')} -C -t orders -o beginning -e -q`], { cwd: dir, env, timeoutMs: 30_000 });
    expect(read.stdout.trim().split('\n')).toEqual(['first order', 'second order']);
  });
});
