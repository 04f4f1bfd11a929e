// The topics page shows both tiers of a tiered partition: the Kafka log start
// (in the lake) and where Redis's part starts.
import { describe, expect, it } from 'vitest';
import { topicsPage } from '../../../../../broker/src/http/console/pages/topics.js';

const part = (partition: number, logStartOffset: number, localLogStartOffset?: number) => ({
  topic: 't', partition, leader: 1, leaderInstance: '1:a', leaderEpoch: 1, logEndOffset: 500, logStartOffset,
  ...(localLogStartOffset === undefined ? {} : { localLogStartOffset }), archivedOffset: 499, lakeLagRecords: 0,
});

/** The cells of each row of the page's first table. */
function rows(html: string): string[][] {
  return [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => [...m[1]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((c) => c[1]!.replace(/<[^>]+>/g, '').trim()));
}

describe('console topics page', () => {
  it('a tiered partition: log start in the lake, Redis from its local start; an untiered one: both the same', () => {
    const html = topicsPage([{ status: { name: 't', partitions: [part(0, 0, 480), part(1, 7)] }, bytes: [1024, 2048], lake: null }], false);
    const r = rows(html);
    expect(r[0]!.slice(0, 5)).toEqual(['partition', 'leader', 'log start', 'in Redis from', 'high watermark']);
    expect(r[1]!.slice(0, 5)).toEqual(['0', '1', '0', '480', '500']);
    expect(r[2]!.slice(0, 5)).toEqual(['1', '1', '7', '7', '500']);
  });
});
