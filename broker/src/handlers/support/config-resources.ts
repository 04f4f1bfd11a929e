// Shared by DescribeConfigs / AlterConfigs / IncrementalAlterConfigs.
import { ErrorCode } from '../../../../common/errors.js';
import { Resource, authorize, authorizeCluster } from './authorize.js';
import type { BrokerServices, RequestContext } from './types.js';

export const ResourceType = { TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8, GROUP: 32 } as const;

/**
 * Kafka's check of a config resource: the operation (DESCRIBE_CONFIGS or
 * ALTER_CONFIGS) on the topic or the group, or on the cluster for a broker or its loggers.
 * The error fields of the resource's result when refused, else null.
 */
export function configAccessDenied(ctx: RequestContext, b: BrokerServices, op: number, r: { resourceType: number; resourceName: string }): { errorCode: number; errorMessage: string } | null {
  if (r.resourceType === ResourceType.TOPIC) {
    return authorize(ctx, b, op, Resource.TOPIC, r.resourceName) ? null : { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: 'Authorization failed.' };
  }
  if (r.resourceType === ResourceType.GROUP) {
    return authorize(ctx, b, op, Resource.GROUP, r.resourceName) ? null : { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: 'Group authorization failed.' };
  }
  if (r.resourceType === ResourceType.BROKER || r.resourceType === ResourceType.BROKER_LOGGER) {
    return authorizeCluster(ctx, b, op) ? null : { errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'Cluster authorization failed.' };
  }
  return null;
}
