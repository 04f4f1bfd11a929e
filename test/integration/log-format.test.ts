// log.format on a real `runnel broker` (redis-server underneath): with
// RUNNEL_LOG_FORMAT=pretty the start-up line "runnel broker listening" is one
// human-readable line in pino-pretty's form, and no line of the log is JSON;
// with nothing set the same line is JSON (the default deploy/ and the tests rely
// on); another value stops the broker.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { brokerExit, startRunnel, type RunnelBroker } from '../helpers/runnel.js';
import { waitFor } from '../helpers/procs.js';

let redis: RedisServer;
const brokers: RunnelBroker[] = [];

beforeAll(async () => {
  redis = await startRedis();
}, 60_000);

afterAll(async () => {
  for (const b of brokers) await b.stop().catch(() => undefined);
  await redis?.stop();
});

/** The broker's log lines (stdout and stderr), without the helper's `# command` header. */
const logLines = (b: RunnelBroker): string[] => fs.readFileSync(b.proc().logFile, 'utf8').split('\n').filter((l) => l !== '' && !l.startsWith('# '));

async function listeningLine(b: RunnelBroker): Promise<string> {
  let line: string | undefined;
  await waitFor('the listening line', () => Boolean((line = logLines(b).find((l) => l.includes('runnel broker listening')))), { timeoutMs: 10_000, intervalMs: 100 });
  return line!;
}

describe('log.format', () => {
  it('pretty (RUNNEL_LOG_FORMAT): "runnel broker listening" is one readable line, not JSON', async () => {
    const b = await startRunnel({ redisUrl: redis.url, args: ['--node-id', '7'], env: { RUNNEL_LOG_FORMAT: 'pretty' } });
    brokers.push(b);
    const line = await listeningLine(b);
    expect(() => JSON.parse(line) as unknown).toThrow();
    expect(line).not.toContain('\u001b['); // a file, not a terminal: no colour
    expect(line).toMatch(/^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\] INFO \(broker\): runnel broker listening host=127\.0\.0\.1 port=\d+ /);
    expect(line).toContain(` port=${b.port} `);
    expect(line).toContain(' nodeId=7 ');
    expect(line).toMatch(/ redis=redis:\/\/127\.0\.0\.1:\d+/);
    for (const l of logLines(b)) expect(l.startsWith('{'), l).toBe(false);
  }, 90_000);

  it('json unless set', async () => {
    const b = await startRunnel({ redisUrl: redis.url, args: ['--node-id', '8'] });
    brokers.push(b);
    const line = await listeningLine(b);
    expect(JSON.parse(line)).toMatchObject({ level: 'info', component: 'broker', msg: 'runnel broker listening', port: b.port, nodeId: 8 });
  }, 90_000);

  it('another value stops the broker at start, naming it', async () => {
    const { exit, log } = await brokerExit(redis.url, ['log.format=text']);
    expect(exit.code, log).toBe(1);
    expect(log).toContain('log.format=text (expected json or pretty)');
  }, 60_000);
});
