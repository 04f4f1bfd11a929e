// group.consumer.assignors: the server-side assignors of consumer-protocol
// groups (KIP-848) by name, Kafka's class names accepted too. The assignors
// themselves live in groups/consumer/assignors.ts (a test keeps the names equal).
import { RunnelError } from '../../../common/errors.js';

export const CONSUMER_ASSIGNOR_NAMES: readonly string[] = ['uniform', 'range'];

const CLASS_NAMES: Record<string, string> = {
  'org.apache.kafka.coordinator.group.assignor.UniformAssignor': 'uniform',
  'org.apache.kafka.coordinator.group.assignor.RangeAssignor': 'range',
};

/** group.consumer.assignors (comma-separated) as assignor names, the first the default; an unknown one is a configuration error. */
export function consumerAssignors(value: string): string[] {
  const names = value.split(',').map((x) => x.trim()).filter((x) => x !== '').map((x) => CLASS_NAMES[x] ?? x);
  for (const n of names) if (!CONSUMER_ASSIGNOR_NAMES.includes(n)) throw new RunnelError('CONFIG_INVALID', `group.consumer.assignors: unknown assignor ${n} (supported: ${CONSUMER_ASSIGNOR_NAMES.join(', ')})`);
  if (names.length === 0) throw new RunnelError('CONFIG_INVALID', 'group.consumer.assignors: at least one assignor is required');
  return names;
}

export type MigrationPolicy = 'disabled' | 'upgrade' | 'downgrade' | 'bidirectional';

/** group.consumer.migration.policy (Kafka's values, any case): whether classic and consumer groups convert into each other online. */
export function migrationPolicy(value: string): MigrationPolicy {
  const v = value.trim().toLowerCase();
  if (v === 'disabled' || v === 'upgrade' || v === 'downgrade' || v === 'bidirectional') return v;
  throw new RunnelError('CONFIG_INVALID', `group.consumer.migration.policy: ${value} is not one of disabled, upgrade, downgrade, bidirectional`);
}
