// Answers to JoinGroup/SyncGroup requests, including those parked on a member until a rebalance step completes.
import { ErrorCode, KafkaError, kafkaCodeOf } from '../../../common/errors.js';
import { EMPTY, type JoinResult, type Member, type SyncResult } from './group.js';

export const joinError = (memberId: string, errorCode: number): JoinResult => ({
  errorCode, generationId: -1, protocolType: null, protocolName: null, leader: '', skipAssignment: false, memberId, members: [],
});

export const syncError = (errorCode: number): SyncResult => ({ errorCode, protocolType: null, protocolName: null, assignment: EMPTY });

/** Storage failures surface as COORDINATOR_NOT_AVAILABLE: clients rediscover the coordinator and retry. */
export function storeErrorCode(e: unknown): number {
  const code = kafkaCodeOf(e, 'coordinator');
  if (code === null) throw e;
  return code;
}

/** This broker does not (or no longer) coordinate the group. */
export function isNotCoordinator(e: unknown): boolean {
  return e instanceof KafkaError && e.code === ErrorCode.NOT_COORDINATOR;
}

export function invokeJoin(m: Member, r: JoinResult): void {
  const w = m.joinWaiter;
  if (!w) return;
  m.joinWaiter = null;
  w(r);
}

export function invokeSync(m: Member, r: SyncResult): void {
  const w = m.syncWaiter;
  if (!w) return;
  m.syncWaiter = null;
  w(r);
}
