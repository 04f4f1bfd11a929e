// Who may do what on the Schema Registry, decided by the broker's authorizer
// (the Kafka port's ACLs). Kafka has no SUBJECT resource type, so a subject
// is authorized as the topic it belongs to under Confluent's default
// TopicNameStrategy: subject `<topic>-value` or `<topic>-key` is topic
// `<topic>`; any other subject (RecordNameStrategy and the like) is the topic
// named like the subject itself, so prefixed topic ACLs cover it.
//  - reading a subject (its versions, schemas, lookups, compatibility tests,
//    its config and mode) needs DESCRIBE on the topic, which READ and WRITE
//    imply, as in Kafka: a consumer may fetch the schemas of what it reads;
//  - registering and deleting need WRITE on the topic: a producer may
//    register the schemas of what it writes;
//  - changing a subject's compatibility or mode needs ALTER_CONFIGS on the topic;
//  - the global config and mode need DESCRIBE_CONFIGS (read) or
//    ALTER_CONFIGS (change) on the CLUSTER resource.
// super.users and allow.everyone.if.no.acl.found apply as on the Kafka port.
import { AclOperation, CLUSTER_NAME, ResourceType } from '../security/acl/model.js';
import { newSession, type Session } from '../security/session.js';

export type SubjectOp = 'read' | 'write' | 'alter';
export type GlobalOp = 'read' | 'alter';

export interface RegistryAccess {
  subject(op: SubjectOp, subject: string): boolean;
  global(op: GlobalOp): boolean;
}

export const OPEN_ACCESS: RegistryAccess = { subject: () => true, global: () => true };

/** The topic a subject is authorized as (TopicNameStrategy's `<topic>-key` / `<topic>-value`, else the subject). */
export function topicOfSubject(subject: string): string {
  const m = /^(.+)-(?:key|value)$/.exec(subject);
  return m ? m[1]! : subject;
}

/** The one method of AclService this needs. */
export interface AclCheck {
  allowed(session: Session, op: number, resourceType: number, name: string): boolean;
}

const SUBJECT_OPS: Record<SubjectOp, number> = { read: AclOperation.DESCRIBE, write: AclOperation.WRITE, alter: AclOperation.ALTER_CONFIGS };
const GLOBAL_OPS: Record<GlobalOp, number> = { read: AclOperation.DESCRIBE_CONFIGS, alter: AclOperation.ALTER_CONFIGS };

/** The access of `principal` connecting from `address` (the peer IP, for ACL host matching). */
export function aclAccess(acls: AclCheck, principal: string, address: string): RegistryAccess {
  // An HTTP request has no Kafka connection: a session that only carries who and from where.
  const session = newSession(0, address, 'schema-registry');
  session.principal = principal;
  return {
    subject: (op, s) => acls.allowed(session, SUBJECT_OPS[op], ResourceType.TOPIC, topicOfSubject(s)),
    global: (op) => acls.allowed(session, GLOBAL_OPS[op], ResourceType.CLUSTER, CLUSTER_NAME),
  };
}
