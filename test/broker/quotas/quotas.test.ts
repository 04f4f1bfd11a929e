// Quota rules alone: Kafka's rate window, throttle time, entity validation,
// DescribeClientQuotas matching and the order in which entities apply.
import { describe, expect, it } from 'vitest';
import { SampledRate, throttleMs } from '../../../broker/src/quotas/rate.js';
import { entityFromKey, entityKey, matchesFilter, parseEntity, resolveQuota, validateQuota, type QuotaEntity } from '../../../broker/src/quotas/entities.js';
import { QuotaManager } from '../../../broker/src/quotas/quota-manager.js';
import { ErrorCode } from '../../../common/errors.js';

const quotas = (entries: Array<[QuotaEntity, Record<string, number>]>) => new Map(entries.map(([e, kv]) => [entityKey(e), new Map(Object.entries(kv))]));

describe('sampled rate', () => {
  it('counts at least num-1 windows, so a first burst is not an enormous rate', () => {
    const r = new SampledRate(11, 1000);
    r.record(10_000, 0);
    expect(r.windowSize(0)).toBe(10_000);
    expect(r.rate(0)).toBe(1000);
    // 10 s later the window is the real elapsed time
    r.record(10_000, 10_500);
    expect(r.windowSize(10_500)).toBe(10_500);
    expect(r.rate(10_500)).toBeCloseTo(20_000 / 10.5, 6);
  });

  it('forgets samples older than num windows', () => {
    const r = new SampledRate(3, 1000);
    r.record(900, 0);
    r.record(100, 3000);
    expect(r.rate(3000)).toBeCloseTo(100 / 2, 6);
  });

  it('throttles for the time the rate needs to come back to the bound (Kafka: (value - bound) / bound * window)', () => {
    const r = new SampledRate(11, 1000);
    r.record(30_000, 0); // 3000/s over the 10 s minimum window
    expect(throttleMs(r, 1000, 0)).toBe(20_000);
    expect(throttleMs(r, 3000, 0)).toBe(0);
  });
});

describe('quota entities', () => {
  it('refuses what Kafka refuses, with its messages', () => {
    expect(parseEntity([])).toEqual({ errorCode: ErrorCode.INVALID_REQUEST, message: 'Invalid empty client quota entity' });
    expect(parseEntity([{ entityType: 'user', entityName: 'a' }, { entityType: 'user', entityName: 'b' }])).toMatchObject({ message: 'Invalid client quota entity, duplicate entity entry user' });
    expect(parseEntity([{ entityType: 'group', entityName: 'a' }])).toMatchObject({ message: 'Unhandled client quota entity type: group' });
    expect(parseEntity([{ entityType: 'client-id', entityName: '' }])).toMatchObject({ message: 'Empty client-id not supported' });
    expect(parseEntity([{ entityType: 'ip', entityName: '1.2.3.4' }, { entityType: 'user', entityName: 'a' }])).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST });
    const user = { user: 'alice' };
    expect(validateQuota(user, 'producer_byte_rate', 1024)).toBeNull();
    expect(validateQuota(user, 'producer_byte_rate', 1.5)).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST });
    expect(validateQuota(user, 'request_percentage', 12.5)).toBeNull();
    expect(validateQuota(user, 'consumer_byte_rate', 0)).toMatchObject({ message: 'Quota consumer_byte_rate must be greater than 0' });
    expect(validateQuota(user, 'connection_creation_rate', 5)).toMatchObject({ message: 'Invalid configuration key connection_creation_rate' });
    expect(validateQuota({ ip: null }, 'connection_creation_rate', 5)).toBeNull();
  });

  it('keys round-trip, names with separators included, and defaults stay defaults', () => {
    for (const e of [{ user: 'a,b=c' }, { user: null, 'client-id': 'x y' }, { 'client-id': null }, { ip: '10.0.0.1' }] as QuotaEntity[]) {
      expect(entityFromKey(entityKey(e))).toEqual(e);
    }
    expect(entityKey({ 'client-id': 'c', user: 'u' })).toBe('user=u,client-id=c');
  });

  it('matches DescribeClientQuotas filters: exact, default, any specified, strict', () => {
    const e: QuotaEntity = { user: 'alice', 'client-id': null };
    expect(matchesFilter(e, [{ entityType: 'user', matchType: 0, match: 'alice' }], false)).toBe(true);
    expect(matchesFilter(e, [{ entityType: 'user', matchType: 0, match: 'alice' }], true)).toBe(false);
    expect(matchesFilter(e, [{ entityType: 'client-id', matchType: 1, match: null }], false)).toBe(true);
    expect(matchesFilter(e, [{ entityType: 'client-id', matchType: 2, match: null }], false)).toBe(false);
    expect(matchesFilter(e, [], false)).toBe(true);
  });

  it('applies the most specific entity, in Kafka\'s order, and measures defaults per user or client', () => {
    const q = quotas([
      [{ 'client-id': null }, { producer_byte_rate: 1 }],
      [{ 'client-id': 'app' }, { producer_byte_rate: 2 }],
      [{ user: null }, { producer_byte_rate: 3 }],
      [{ user: 'alice' }, { producer_byte_rate: 4 }],
      [{ user: 'alice', 'client-id': 'app' }, { producer_byte_rate: 5 }],
    ]);
    expect(resolveQuota(q, 'producer_byte_rate', 'alice', 'app')).toEqual({ bound: 5, user: 'alice', clientId: 'app' });
    expect(resolveQuota(q, 'producer_byte_rate', 'alice', 'other')).toEqual({ bound: 4, user: 'alice', clientId: '' });
    expect(resolveQuota(q, 'producer_byte_rate', 'bob', 'app')).toEqual({ bound: 3, user: 'bob', clientId: '' });
    const clientsOnly = quotas([[{ 'client-id': null }, { producer_byte_rate: 1 }], [{ 'client-id': 'app' }, { producer_byte_rate: 2 }]]);
    expect(resolveQuota(clientsOnly, 'producer_byte_rate', 'bob', 'app')).toEqual({ bound: 2, user: '', clientId: 'app' });
    expect(resolveQuota(clientsOnly, 'producer_byte_rate', 'bob', 'x')).toEqual({ bound: 1, user: '', clientId: 'x' });
    expect(resolveQuota(clientsOnly, 'consumer_byte_rate', 'bob', 'x')).toBeNull();
  });
});

describe('quota manager', () => {
  it('throttles a client over its produce quota and leaves others alone; a throttled fetch is not counted', () => {
    const m = new QuotaManager({ windowNum: 11, windowMs: 1000 });
    m.setQuotas(quotas([[{ 'client-id': null }, { producer_byte_rate: 1000, consumer_byte_rate: 1000 }]]));
    expect(m.recordProduce('ANONYMOUS', 'a', 5000, 0)).toBe(0); // 500/s over 10 s
    expect(m.recordProduce('ANONYMOUS', 'a', 10_000, 0)).toBe(5000); // 1500/s: 0.5 x 10 s
    expect(m.recordProduce('ANONYMOUS', 'b', 5000, 0)).toBe(0); // the default applies to each client apart
    expect(m.recordFetch('ANONYMOUS', 'c', 20_000, 0)).toBe(10_000);
    // not counted: a fetch within the quota is still allowed
    expect(m.recordFetch('ANONYMOUS', 'c', 5000, 0)).toBe(0);
    m.setQuotas(new Map());
    expect(m.recordProduce('ANONYMOUS', 'a', 1e9, 0)).toBe(0);
  });

  it('request_percentage counts request time as a share of one thread', () => {
    const m = new QuotaManager({ windowNum: 11, windowMs: 1000 });
    m.setQuotas(quotas([[{ user: 'alice' }, { request_percentage: 10 }]]));
    // 10 % of a thread over the 10 s window is 1 s of request time
    expect(m.recordRequestTime('alice', 'x', 1000, 0)).toBe(0);
    expect(m.recordRequestTime('alice', 'x', 1000, 0)).toBe(10_000);
  });
});
