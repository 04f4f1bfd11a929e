// The message browser's query: n defaults to 20 and must be 1..500; partition
// a non-negative integer; topic a Kafka topic name. Bad values say which.
import { describe, expect, it } from 'vitest';
import { BadQuery, parseBrowseQuery } from '../../../../broker/src/http/console/query.js';

describe('message browser query', () => {
  it('defaults: no topic is the form, n = 20, partition 0', () => {
    expect(parseBrowseQuery({})).toEqual({ n: 20, browse: null });
    expect(parseBrowseQuery({ topic: 'orders' })).toEqual({ n: 20, browse: { topic: 'orders', partition: 0, n: 20 } });
    expect(parseBrowseQuery({ topic: 'a.b_c-1', partition: '7', n: '500' })).toEqual({ n: 500, browse: { topic: 'a.b_c-1', partition: 7, n: 500 } });
    expect(parseBrowseQuery({ topic: 'orders', n: '1' }).n).toBe(1);
  });

  it('refuses n outside 1..500 or not a plain integer, naming it', () => {
    for (const n of ['0', '501', '-1', '1.5', '1e2', 'abc', ' 3', '0x10', '99999999999']) {
      expect(() => parseBrowseQuery({ topic: 'orders', n }), n).toThrow(BadQuery);
      expect(() => parseBrowseQuery({ topic: 'orders', n }), n).toThrow(/^n must be an integer from 1 to 500/);
    }
  });

  it('refuses a bad partition, a repeated parameter and a topic that is no topic name', () => {
    expect(() => parseBrowseQuery({ topic: 'orders', partition: '-1' })).toThrow(/^partition must be an integer from 0 to 2147483647/);
    expect(() => parseBrowseQuery({ topic: 'orders', n: ['1', '2'] })).toThrow(/^n is given more than once/);
    for (const topic of ['<script>', 'a b', 'x'.repeat(250), 'a/b']) expect(() => parseBrowseQuery({ topic }), topic).toThrow(/^topic must be a topic name/);
  });
});
