// What `runnel dev` prints once everything listens: where each part is, and a
// first produce/consume pair that works as pasted against it.
import { redactSecrets } from '../common/logger/logger.js';

export interface DevEndpoints {
  /** host:port of the Kafka listener. */
  kafka: string;
  /** http://host:port of the HTTP endpoint, null when http.port is 0. */
  http: string | null;
  /** Whether the web console is served on the HTTP endpoint. */
  console: boolean;
  /** The Schema Registry's first listener, null when off. */
  registry: string | null;
  /** The Redis the broker and the archiver use ('' when unknown). */
  redis: string;
  /** The lake the archiver writes. */
  lake: string;
}

export function devBanner(e: DevEndpoints): string {
  const bootstrap = e.kafka === '127.0.0.1:9092' ? '' : ` --bootstrap-server ${e.kafka}`;
  const rows: Array<[string, string]> = [['Kafka', e.kafka]];
  if (e.http && e.console) rows.push(['web console', `${e.http}/console`]);
  if (e.http) rows.push(['metrics', `${e.http}/metrics`]);
  if (e.registry) rows.push(['registry', e.registry]);
  if (e.redis) rows.push(['Redis', redactSecrets(e.redis)]);
  rows.push(['lake', e.lake]);
  return [
    '',
    'runnel dev is up (Ctrl-C stops everything):',
    ...rows.map(([k, v]) => `  ${k.padEnd(12)} ${v}`),
    'Try, in another terminal:',
    `  echo 'hello' | ./runnel produce demo${bootstrap}`,
    `  ./runnel consume demo --from-beginning --max-messages 1${bootstrap}`,
    '',
  ].join('\n');
}
