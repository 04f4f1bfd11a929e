// DescribeUserScramCredentials (key 50), v0.
//   v0: each user's SCRAM mechanisms and iteration counts (KIP-554); flexible encoding.
// Never the credentials. Kafka's rules (ScramImage.describe):
// no users (null or empty) lists every user; a user named twice is answered
// DUPLICATE_RESOURCE, an unknown one RESOURCE_NOT_FOUND.
// Authorization: DESCRIBE on the cluster (Kafka), else CLUSTER_AUTHORIZATION_FAILED for the request.
import { DescribeUserScramCredentials } from '../protocol/messages/describe-user-scram-credentials.js';
import { ErrorCode } from '../../../common/errors.js';
import type { HandlerOf } from './support/types.js';
import { Op, authorizeCluster } from './support/authorize.js';

export const describeUserScramCredentialsHandler: HandlerOf<typeof DescribeUserScramCredentials> = {
  api: DescribeUserScramCredentials,
  minVersion: 0,
  maxVersion: 0,
  async handle(req, ctx, broker) {
    if (!authorizeCluster(ctx, broker, Op.DESCRIBE)) return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: null, results: [] };
    if (!broker.credentials) return { throttleTimeMs: 0, errorCode: ErrorCode.UNSUPPORTED_VERSION, errorMessage: 'SCRAM credentials are not available', results: [] };
    const stored = await broker.credentials.list();
    const asked = req.users ?? [];
    // user -> named more than once
    const users = new Map<string, boolean>();
    if (asked.length === 0) for (const u of stored.keys()) users.set(u, false);
    else for (const u of asked) users.set(u.name, users.has(u.name));
    const results = [...users].map(([user, duplicate]) => {
      if (duplicate) return { user, errorCode: ErrorCode.DUPLICATE_RESOURCE, errorMessage: `Cannot describe SCRAM credentials for the same user twice in a single request: ${user}`, credentialInfos: [] };
      const infos = stored.get(user);
      if (!infos) return { user, errorCode: ErrorCode.RESOURCE_NOT_FOUND, errorMessage: `Attempt to describe a user credential that does not exist: ${user}`, credentialInfos: [] };
      const credentialInfos = [...infos].sort((a, b) => a.mechanism.type - b.mechanism.type).map((i) => ({ mechanism: i.mechanism.type, iterations: i.iterations }));
      return { user, errorCode: ErrorCode.NONE, errorMessage: null, credentialInfos };
    });
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, results };
  },
};
