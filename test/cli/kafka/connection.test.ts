// Version negotiation: the highest version both the definition and the broker support.
import { describe, expect, it } from 'vitest';
import { pickVersion } from '../../../cli/kafka/connection.js';
import { parseVersions } from '../../../broker/src/protocol/versions.js';
import { Fetch } from '../../../broker/src/protocol/messages/fetch.js';

describe('pickVersion', () => {
  it('takes the lower of the two maxima when the ranges meet', () => {
    const ours = parseVersions(Fetch.request.validVersions); // 4-16
    expect(pickVersion(ours, { min: 4, max: 17 })).toBe(16); // Apache Kafka 4.x
    expect(pickVersion(ours, { min: 0, max: 12 })).toBe(12);
    expect(pickVersion({ min: 3, max: Number.MAX_SAFE_INTEGER }, { min: 0, max: 9 })).toBe(9);
  });

  it('is null when they do not meet', () => {
    expect(pickVersion({ min: 4, max: 16 }, { min: 0, max: 3 })).toBeNull();
    expect(pickVersion({ min: 4, max: 16 }, { min: 17, max: 20 })).toBeNull();
  });
});
