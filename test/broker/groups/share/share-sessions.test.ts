import { describe, expect, it } from 'vitest';
import { ShareSessions } from '../../../../broker/src/groups/share/share-sessions.js';
import { ErrorCode } from '../../../../common/errors.js';

describe('share sessions', () => {
  it('epoch 0 opens, then each request carries the next epoch', () => {
    const s = new ShareSessions(10);
    expect(s.open('g', 'm').errorCode).toBe(ErrorCode.NONE);
    expect(s.advance('g', 'm', 1).errorCode).toBe(ErrorCode.NONE);
    expect(s.advance('g', 'm', 1).errorCode).toBe(ErrorCode.INVALID_SHARE_SESSION_EPOCH);
    expect(s.advance('g', 'm', 2).errorCode).toBe(ErrorCode.NONE);
    expect(s.get('g', 'm')?.epoch).toBe(3);
  });

  it('an unknown session is SHARE_SESSION_NOT_FOUND; -1 is accepted then the session closes', () => {
    const s = new ShareSessions(10);
    expect(s.advance('g', 'm', 1).errorCode).toBe(ErrorCode.SHARE_SESSION_NOT_FOUND);
    s.open('g', 'm');
    expect(s.advance('g', 'm', -1).errorCode).toBe(ErrorCode.NONE);
    expect(s.close('g', 'm')).toBeDefined();
    expect(s.advance('g', 'm', 2).errorCode).toBe(ErrorCode.SHARE_SESSION_NOT_FOUND);
  });

  it('a full cache evicts sessions unused for longer than the idle limit', () => {
    const s = new ShareSessions(1, 1000);
    s.open('g', 'old', 0);
    expect(s.open('g', 'new', 500).errorCode).toBe(ErrorCode.SHARE_SESSION_LIMIT_REACHED);
    const r = s.open('g', 'new', 1500);
    expect(r.errorCode).toBe(ErrorCode.NONE);
    expect(r.evicted.map((x) => x.memberId)).toEqual(['old']);
    expect(s.get('g', 'old')).toBeUndefined();
  });

  it('a second open replaces the member\'s session; the limit refuses new members', () => {
    const s = new ShareSessions(1);
    s.open('g', 'm');
    s.get('g', 'm')!.partitions.set('t/0', { topicId: 't', partition: 0 });
    const again = s.open('g', 'm');
    expect(again.replaced?.partitions.size).toBe(1);
    expect(again.session?.partitions.size).toBe(0);
    expect(s.open('g', 'other').errorCode).toBe(ErrorCode.SHARE_SESSION_LIMIT_REACHED);
  });
});
