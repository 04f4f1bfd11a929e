// Shared by the consumer-group handlers.
import { ErrorCode, KafkaError, RunnelError } from '../../../common/errors.js';
import { isLocalCoordinator } from './cluster-view.js';
import type { BrokerServices } from './types.js';

/**
 * Whether this broker coordinates the group. When it does not, any copy of
 * the group in memory is dropped, so that a later takeover reloads it from
 * Redis instead of serving stale state.
 */
export function coordinatesGroup(b: BrokerServices, groupId: string): boolean {
  if (isLocalCoordinator(b, groupId)) return true;
  b.groups.unload(groupId);
  return false;
}

/** Storage trouble becomes COORDINATOR_NOT_AVAILABLE (retriable: clients look the coordinator up again). */
export function groupErrorCode(e: unknown): number {
  if (e instanceof KafkaError) return e.code;
  if (e instanceof RunnelError) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  throw e;
}
