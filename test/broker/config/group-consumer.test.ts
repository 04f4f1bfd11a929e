// Kafka's group.consumer.* broker settings (consumer-protocol groups, KIP-848):
// defaults as in Kafka, settable, and an unknown assignor refused at start-up.
import { describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../../broker/src/config/config.js';
import { consumerAssignors } from '../../../broker/src/config/group-consumer.js';

describe('group.consumer.* settings', () => {
  it('default to Kafka\'s values', () => {
    const c = loadBrokerConfig([], {});
    expect([c.groupConsumerSessionTimeoutMs, c.groupConsumerHeartbeatIntervalMs, c.groupConsumerAssignors]).toEqual([45_000, 5000, 'uniform,range']);
  });

  it('are settable; an unknown assignor is a configuration error naming the supported ones', () => {
    const c = loadBrokerConfig(['--set', 'group.consumer.heartbeat.interval.ms=1000', '--set', 'group.consumer.assignors=range'], {});
    expect([c.groupConsumerHeartbeatIntervalMs, c.groupConsumerAssignors]).toEqual([1000, 'range']);
    expect(() => loadBrokerConfig(['--set', 'group.consumer.assignors=sticky'], {})).toThrow('group.consumer.assignors: unknown assignor sticky (supported: uniform, range)');
  });

  it('take Kafka\'s class names too', () => {
    expect(consumerAssignors('range, org.apache.kafka.coordinator.group.assignor.UniformAssignor')).toEqual(['range', 'uniform']);
  });
});
