import { describe, expect, it } from 'vitest';
import { devBanner } from '../../cli/dev-banner.js';

describe('runnel dev banner', () => {
  it('names every part and a produce/consume pair for the default port, without --bootstrap-server', () => {
    const b = devBanner({ kafka: '127.0.0.1:9092', http: 'http://127.0.0.1:8080', console: true, registry: 'http://127.0.0.1:8081', redis: 'redis://127.0.0.1:4000', lake: 'file:///x/data/lake' });
    expect(b.split('\n')).toEqual([
      '',
      'runnel dev is up (Ctrl-C stops everything):',
      '  Kafka        127.0.0.1:9092',
      '  web console  http://127.0.0.1:8080/console',
      '  metrics      http://127.0.0.1:8080/metrics',
      '  registry     http://127.0.0.1:8081',
      '  Redis        redis://127.0.0.1:4000',
      '  lake         file:///x/data/lake',
      'Try, in another terminal:',
      "  echo 'hello' | ./runnel produce demo",
      '  ./runnel consume demo --from-beginning --max-messages 1',
      '',
    ]);
  });

  it('adds --bootstrap-server for another port, leaves out what is off and hides a Redis password', () => {
    const b = devBanner({ kafka: '127.0.0.1:19092', http: null, console: false, registry: null, redis: 'redis://:s3cret@10.0.0.5:6379', lake: 's3://lake/t' });
    expect(b).toContain("echo 'hello' | ./runnel produce demo --bootstrap-server 127.0.0.1:19092\n");
    expect(b).not.toContain('console');
    expect(b).not.toContain('metrics');
    expect(b).not.toContain('registry');
    expect(b).not.toContain('s3cret');
    expect(b).toContain('  Redis        redis://');
  });
});
