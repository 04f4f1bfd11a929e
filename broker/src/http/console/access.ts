// What one console request may see, decided by the broker's authorizer (the
// AclService of the Kafka port) for the request's principal and address, with
// the operations the Kafka APIs behind each page need:
//  - a topic is listed (topics, partition leaders, a group's offsets) only
//    with DESCRIBE on it, as Metadata lists only those;
//  - its records need READ, as Fetch does (else TOPIC_AUTHORIZATION_FAILED, 29);
//  - a consumer group needs DESCRIBE on it, as DescribeGroups and
//    ListGroups do (else GROUP_AUTHORIZATION_FAILED, 30).
// super.users and allow.everyone.if.no.acl.found apply as on the Kafka port;
// with authorization off everything is allowed.
import { AclOperation, ResourceType } from '../../security/acl/model.js';
import { newSession } from '../../security/session.js';

export interface ConsoleAccess {
  describeTopic(topic: string): boolean;
  readTopic(topic: string): boolean;
  describeGroup(groupId: string): boolean;
}

export const ALLOW_ALL: ConsoleAccess = { describeTopic: () => true, readTopic: () => true, describeGroup: () => true };

/** The one method of AclService the console needs. */
export interface AclCheck {
  allowed(session: ReturnType<typeof newSession>, op: number, resourceType: number, name: string): boolean;
}

/** The access of `principal` connecting from `address` (the peer IP, for ACL host matching). */
export function consoleAccess(acls: AclCheck, principal: string, address: string): ConsoleAccess {
  // An HTTP request has no Kafka connection: a session that only carries who and from where.
  const session = newSession(0, address, 'http');
  session.principal = principal;
  return {
    describeTopic: (t) => acls.allowed(session, AclOperation.DESCRIBE, ResourceType.TOPIC, t),
    readTopic: (t) => acls.allowed(session, AclOperation.READ, ResourceType.TOPIC, t),
    describeGroup: (g) => acls.allowed(session, AclOperation.DESCRIBE, ResourceType.GROUP, g),
  };
}
