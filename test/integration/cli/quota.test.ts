// `runnel quota` against a broker (RUNNEL_TEST_TARGET=kafka: Apache Kafka):
// quotas of a user, the default user, a user + client id and an IP are set,
// described (table and JSON, every quota and exactly one entity) and removed;
// --validate-only changes nothing; an unknown key, and a user's key on an IP,
// are the broker's INVALID_REQUEST. Then a producer_byte_rate on client id
// "slow" holds back `runnel produce` with client.id=slow (the broker stops
// reading a throttled connection, KIP-219) while client id "fast" is not held
// back, and after --delete-config "slow" is not held back either.
//
// quota.window.num=2 (as test/integration/quotas/): the rate is measured over
// about a second, so a client may burst about one second's quota before the
// first throttle, and the rest follows at the quota.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTarget, targetKindFromEnv, type Target } from '../../helpers/target.js';
import { sleep } from '../../helpers/procs.js';
import { ok, runnel } from './support.js';

const KIND = targetKindFromEnv();
const RATE = 128 * 1024; // bytes/s for client id "slow"
const RECORDS = 512; // of 1 KiB: 512 KiB, four seconds' quota
let target: Target;
let dir: string;

interface Entry { entity: Record<string, string | null>; quotas: Record<string, number> }

const quota = (args: string[]) => runnel(target.bootstrap, ['quota', ...args]);
const describeJson = async (args: string[]): Promise<Entry[]> => JSON.parse(ok(await quota(['describe', ...args, '--json']))) as Entry[];

/** Kafka's brokers serve DescribeClientQuotas from metadata that follows the controller a moment later: wait for `want`. */
async function described(args: string[], want: Entry[]): Promise<void> {
  let got = await describeJson(args);
  for (let i = 0; i < 20 && JSON.stringify(got) !== JSON.stringify(want); i++) {
    await sleep(250);
    got = await describeJson(args);
  }
  expect(got).toEqual(want);
}

function props(clientId: string): string {
  const file = path.join(dir, `${clientId}.properties`);
  fs.writeFileSync(file, `client.id=${clientId}\n`);
  return file;
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-quota-'));
  target = await startTarget({ runnel: { args: ['--set', 'quota.window.num=2'] }, kafka: { props: { 'quota.window.num': 2 } } });
}, 120_000);

afterAll(async () => {
  await target?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe(`runnel quota against ${KIND}`, () => {
  it('sets, describes and deletes quotas of a user, the default user, a user + client id and an IP', async () => {
    expect(ok(await quota(['alter', '--user', 'alice', '--add-config', 'producer_byte_rate=1048576,consumer_byte_rate=2097152']))).toBe('Altered quotas of user alice.\n');
    expect(ok(await quota(['alter', '--user-default', '--add-config', 'producer_byte_rate=524288']))).toBe('Altered quotas of user <default>.\n');
    ok(await quota(['alter', '--user', 'alice', '--client-id', 'app', '--add-config', 'request_percentage=12.5']));
    ok(await quota(['alter', '--ip', '10.1.2.3', '--add-config', 'connection_creation_rate=50']));

    await described([], [
      { entity: { user: null }, quotas: { producer_byte_rate: 524288 } },
      { entity: { user: 'alice' }, quotas: { consumer_byte_rate: 2097152, producer_byte_rate: 1048576 } },
      { entity: { user: 'alice', 'client-id': 'app' }, quotas: { request_percentage: 12.5 } },
      { entity: { ip: '10.1.2.3' }, quotas: { connection_creation_rate: 50 } },
    ]);
    // Exactly the entity named, as kafka-configs --describe: not alice's per-client quota, not the default's.
    expect(ok(await quota(['describe', '--user', 'alice']))).toMatch(/^user\s+client-id\s+ip\s+quota\s+value\nalice\s+consumer_byte_rate\s+2097152\nalice\s+producer_byte_rate\s+1048576\n$/);
    expect(await describeJson(['--user-default'])).toEqual([{ entity: { user: null }, quotas: { producer_byte_rate: 524288 } }]);
    expect(await describeJson(['--user', 'alice', '--client-id', 'app'])).toEqual([{ entity: { user: 'alice', 'client-id': 'app' }, quotas: { request_percentage: 12.5 } }]);

    expect(ok(await quota(['alter', '--user', 'bob', '--add-config', 'producer_byte_rate=1024', '--validate-only']))).toBe('Validated (not altered) quotas of user bob.\n');
    expect(await describeJson(['--user', 'bob'])).toEqual([]);

    const unknown = await quota(['alter', '--user', 'alice', '--add-config', 'producer_rate=1024']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^runnel quota: alter quotas of user alice: INVALID_REQUEST \(.*producer_rate.*\)\n$/);
    // A user's key on an IP entity: Kafka keeps connection_creation_rate apart.
    const ipKey = await quota(['alter', '--ip-default', '--add-config', 'producer_byte_rate=1024']);
    expect(ipKey.code).toBe(1);
    expect(ipKey.stderr).toContain('alter quotas of ip <default>: INVALID_REQUEST');
    const usage = await quota(['alter', '--user', 'alice']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage: runnel quota');

    ok(await quota(['alter', '--user', 'alice', '--delete-config', 'consumer_byte_rate']));
    await described(['--user', 'alice'], [{ entity: { user: 'alice' }, quotas: { producer_byte_rate: 1048576 } }]);
    ok(await quota(['alter', '--user', 'alice', '--delete-config', 'producer_byte_rate']));
    ok(await quota(['alter', '--user-default', '--delete-config', 'producer_byte_rate']));
    ok(await quota(['alter', '--user', 'alice', '--client-id', 'app', '--delete-config', 'request_percentage']));
    ok(await quota(['alter', '--ip', '10.1.2.3', '--delete-config', 'connection_creation_rate']));
    await described([], []);
  });

  it(`producer_byte_rate=${RATE} on client id "slow" holds back runnel produce as client "slow" only, until deleted`, async () => {
    ok(await runnel(target.bootstrap, ['topic', 'create', 'quota-cli-t', '--partitions', '1']));
    ok(await quota(['alter', '--client-id', 'slow', '--add-config', `producer_byte_rate=${RATE}`]));
    await described(['--client-id', 'slow'], [{ entity: { 'client-id': 'slow' }, quotas: { producer_byte_rate: RATE } }]);

    const input = `${'x'.repeat(1023)}\n`.repeat(RECORDS);
    // 16 KiB batches: many Produce requests, so the throttle after each holds back the next.
    const produce = (clientId: string) => runnel(target.bootstrap, ['produce', 'quota-cli-t', '--batch-size', '16384', '--command-config', props(clientId)], { input });
    const fast = await produce('fast');
    const slow = await produce('slow');
    ok(fast);
    ok(slow);
    console.log(`${KIND}: ${RECORDS} KiB as client "fast" in ${fast.durationMs} ms, as client "slow" (quota ${RATE / 1024} KiB/s) in ${slow.durationMs} ms`);
    // All but about a second's burst follows at the quota: at least 2 s of the 3 s that leaves.
    expect(slow.durationMs).toBeGreaterThan(2000);
    expect(slow.durationMs - fast.durationMs).toBeGreaterThan(1500);

    ok(await quota(['alter', '--client-id', 'slow', '--delete-config', 'producer_byte_rate']));
    await described(['--client-id', 'slow'], []);
    const freed = await produce('slow');
    ok(freed);
    console.log(`${KIND}: after --delete-config, client "slow" in ${freed.durationMs} ms`);
    expect(freed.durationMs).toBeLessThan(slow.durationMs - 1500);
    const n = ok(await runnel(target.bootstrap, ['consume', 'quota-cli-t', '--from-beginning', '--max-messages', String(3 * RECORDS)]));
    expect(n.split('\n').filter(Boolean)).toHaveLength(3 * RECORDS);
  });
});
