// The secured quick start (docs/security-quickstart.md, linked from the
// README), run as written: the shell blocks marked
// `<!-- test: secure-quickstart/N -->` are read from that file and run with
// bash in a fresh folder. Only the port changes (9094 -> a free one); the
// administration and alice's records go through `./runnel` alone (user, acl,
// produce, consume), no JVM. The broker is `./runnel broker` with its embedded
// Redis. kcat and KafkaJS then use the same user over the same listener.
// HOME is a folder of the test: the blocks write the keys and certificates to
// ~/.config/runnel/try-tls, never into the checkout (nor into `dir`, the folder
// the broker runs in).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, runCommand, spawnManaged, waitForPort, REPO_ROOT, type ManagedProcess } from '../../helpers/procs.js';
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


describe('docs/security-quickstart.md: secured quick start (SASL_SSL, a SCRAM user, one ACL)', () => {
  it('runs as written: alice produces and consumes `orders`; another topic and a wrong password are refused', async () => {
    const blocks = docBlocks();
    expect(blocks.length, DOC).toBe(3);
    const port = String(await freePort());
    const [certs, start, use] = blocks.map((b) => b!.replaceAll('9094', port)) as [string, string, string];
    const home = path.join(dir, 'home');
    fs.mkdirSync(home);
    const tlsDir = path.join(home, '.config', 'runnel', 'try-tls');
    fs.symlinkSync(path.join(REPO_ROOT, 'runnel'), path.join(dir, 'runnel'));
    // No Kafka tools on the PATH: the quick start needs none.
    const env = { ...process.env, HOME: home };

    const made = await runCommand('bash', ['-euo', 'pipefail', '-c', certs], { cwd: dir, env, timeoutMs: 60_000 });
    expect(made.code, made.stderr).toBe(0);
    expect(fs.readdirSync(tlsDir).sort()).toEqual(['broker.crt', 'broker.csr', 'broker.key', 'broker.pem', 'ca.key', 'ca.pem', 'ca.srl']);
    expect(fs.statSync(tlsDir).mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(dir).filter((f) => /\.(key|pem|crt)$/.test(f))).toEqual([]);

    broker = spawnManaged('secure-quickstart-broker', 'bash', ['-c', `exec ${start}`], { cwd: dir, env });
    await waitForPort(Number(port), { timeoutMs: 60_000 });

    const r = await runCommand('bash', ['-euo', 'pipefail', '-c', use], { cwd: dir, env, timeoutMs: 120_000 });
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toBe('Created SCRAM-SHA-512 credential of user alice.\nCreated 1 ACL.\nfirst order\n');
    expect(fs.statSync(path.join(tlsDir, 'alice.properties')).mode & 0o777).toBe(0o600);

    // What the quick start says happens without the ACL, and with a wrong password: runnel exits 1 naming the error.
    const asAlice = (password: string) => `--bootstrap-server 127.0.0.1:${port} --command-config <(sed 's/alice-secret/${password}/' ${path.join(tlsDir, 'alice.properties')})`;
    const refused = await runCommand('bash', ['-c', `echo x | ./runnel produce payments ${asAlice('alice-secret')}`], { cwd: dir, env, timeoutMs: 60_000 });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('TOPIC_AUTHORIZATION_FAILED');
    const badPassword = await runCommand('bash', ['-c', `./runnel consume orders --from-beginning --max-messages 1 ${asAlice('not-her-password')}`], { cwd: dir, env, timeoutMs: 60_000 });
    expect(badPassword.code).toBe(1);
    expect(badPassword.stderr).toContain('SASL_AUTHENTICATION_FAILED');

    // kcat: the same refusals
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
