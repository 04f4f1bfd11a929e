// One server per listener: ports 0 advertise the bound port, each session
// names its listener, max.connections bounds all listeners together, and
// close() ends them all once. A connection made while the broker is still
// starting (no dispatcher yet) is held and served once it starts.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../../broker/src/config/config.js';
import { startListeners, type RunningListeners } from '../../../broker/src/server/listeners.js';
import { recordingDispatcher, requestFrame } from '../support/recording-dispatcher.js';
import { createLogger } from '../../../common/logger/logger.js';

const logger = createLogger('error', 'test');
const running: RunningListeners[] = [];
afterEach(async () => { await Promise.all(running.splice(0).map((r) => r.close())); });

async function start(...sets: string[]) {
  const config = loadBrokerConfig(sets.flatMap((s) => ['--set', s]), {});
  const { dispatcher, sessions } = recordingDispatcher(config);
  const r = await startListeners(config, logger);
  running.push(r);
  r.setDispatcher(dispatcher);
  return { r, sessions };
}

/** Connects and sends one request; resolves true once answered, false if the broker closes the connection first. */
function answered(port: number, keep: net.Socket[]): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    keep.push(s);
    s.on('error', () => resolve(false));
    s.once('close', () => resolve(false));
    s.once('connect', () => s.write(requestFrame(9)));
    s.once('data', () => resolve(true));
  });
}

describe('listeners', () => {
  it('a connection made before the dispatcher is set is held, and its request answered once the broker starts', async () => {
    const config = loadBrokerConfig(['--set', 'listeners=PLAINTEXT://127.0.0.1:0'], {});
    const { dispatcher } = recordingDispatcher(config);
    const r = await startListeners(config, logger);
    running.push(r);
    const keep: net.Socket[] = [];
    const reply = answered(r.ports[0]!, keep);
    let settled = false;
    void reply.then(() => { settled = true; });
    await new Promise((res) => setTimeout(res, 300));
    expect(settled).toBe(false); // neither answered nor closed while starting
    r.setDispatcher(dispatcher);
    expect(await reply).toBe(true);
    for (const s of keep) s.destroy();
  });

  it('port 0 advertises the bound port; sessions name their listener and protocol', async () => {
    const { r, sessions } = await start('listeners=INTERNAL://127.0.0.1:0,CLIENT://127.0.0.1:0', 'listener.security.protocol.map=INTERNAL:PLAINTEXT,CLIENT:SASL_PLAINTEXT',
      'advertised.listeners=CLIENT://client.example:0');
    expect(r.ports.every((p) => p > 0)).toBe(true);
    expect(r.endpoints).toEqual([
      { listener: 'INTERNAL', host: '127.0.0.1', port: r.ports[0] },
      { listener: 'CLIENT', host: 'client.example', port: r.ports[1] },
    ]);
    const keep: net.Socket[] = [];
    expect(await answered(r.ports[0]!, keep)).toBe(true);
    expect(await answered(r.ports[1]!, keep)).toBe(true);
    for (const s of keep) s.destroy();
    expect(sessions.map((s) => [s.listenerName, s.securityProtocol, s.principal])).toEqual([
      ['INTERNAL', 'PLAINTEXT', 'User:ANONYMOUS'],
      ['CLIENT', 'SASL_PLAINTEXT', 'User:ANONYMOUS'],
    ]);
  });

  it('max.connections counts the connections of every listener together', async () => {
    const { r } = await start('listeners=A://127.0.0.1:0,B://127.0.0.1:0', 'listener.security.protocol.map=A:PLAINTEXT,B:PLAINTEXT', 'max.connections=2');
    const keep: net.Socket[] = [];
    expect(await answered(r.ports[0]!, keep)).toBe(true);
    expect(await answered(r.ports[1]!, keep)).toBe(true);
    expect(await answered(r.ports[1]!, keep)).toBe(false);
    expect(await answered(r.ports[0]!, keep)).toBe(false);
    keep[0]!.destroy();
    await new Promise((res) => setTimeout(res, 50));
    expect(await answered(r.ports[1]!, keep)).toBe(true);
    for (const s of keep) s.destroy();
  });

  it('close() ends every listener once: a second close shares the first, and the ports are free', async () => {
    const { r } = await start('listeners=PLAINTEXT://127.0.0.1:0,OTHER://127.0.0.1:0', 'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,OTHER:PLAINTEXT');
    const first = r.close();
    expect(r.close()).toBe(first);
    await first;
    for (const port of r.ports) {
      const refused = await new Promise<boolean>((resolve) => {
        const s = net.connect(port, '127.0.0.1');
        s.once('error', () => resolve(true));
        s.once('connect', () => { s.destroy(); resolve(false); });
      });
      expect(refused).toBe(true);
    }
  });
});
