// The explicit list of handlers. ApiVersions advertises exactly these.
import type { Handler } from './types.js';
import { advertisedRange, apiVersionsHandler } from '../api-versions.js';
import { metadataHandler } from '../metadata.js';
import { produceHandler } from '../produce.js';
import { fetchHandler } from '../fetch.js';
import { listOffsetsHandler } from '../list-offsets.js';
import { initProducerIdHandler } from '../init-producer-id.js';
import { createTopicsHandler } from '../create-topics.js';
import { deleteTopicsHandler } from '../delete-topics.js';
import { createPartitionsHandler } from '../create-partitions.js';
import { describeConfigsHandler } from '../describe-configs.js';
import { alterConfigsHandler, incrementalAlterConfigsHandler } from '../alter-configs.js';
import { describeClusterHandler } from '../describe-cluster.js';
import { offsetForLeaderEpochHandler } from '../offset-for-leader-epoch.js';
import { deleteRecordsHandler } from '../delete-records.js';
import { saslHandshakeHandler } from '../sasl-handshake.js';
import { describeProducersHandler } from '../describe-producers.js';
import { describeLogDirsHandler } from '../describe-log-dirs.js';
import { findCoordinatorHandler } from '../find-coordinator.js';
import { joinGroupHandler } from '../join-group.js';
import { syncGroupHandler } from '../sync-group.js';
import { heartbeatHandler } from '../heartbeat.js';
import { leaveGroupHandler } from '../leave-group.js';
import { offsetCommitHandler } from '../offset-commit.js';
import { offsetFetchHandler } from '../offset-fetch.js';
import { listGroupsHandler } from '../list-groups.js';
import { describeGroupsHandler } from '../describe-groups.js';
import { deleteGroupsHandler } from '../delete-groups.js';
import { offsetDeleteHandler } from '../offset-delete.js';
import { addPartitionsToTxnHandler } from '../add-partitions-to-txn.js';
import { addOffsetsToTxnHandler } from '../add-offsets-to-txn.js';
import { endTxnHandler } from '../end-txn.js';
import { txnOffsetCommitHandler } from '../txn-offset-commit.js';
import { describeTransactionsHandler } from '../describe-transactions.js';
import { listTransactionsHandler } from '../list-transactions.js';
import { writeTxnMarkersHandler } from '../write-txn-markers.js';
import { describeClientQuotasHandler } from '../describe-client-quotas.js';
import { alterClientQuotasHandler } from '../alter-client-quotas.js';
import { describeAclsHandler } from '../describe-acls.js';
import { createAclsHandler } from '../create-acls.js';
import { deleteAclsHandler } from '../delete-acls.js';
import { saslAuthenticateHandler } from '../sasl-authenticate.js';
import { describeUserScramCredentialsHandler } from '../describe-user-scram-credentials.js';
import { alterUserScramCredentialsHandler } from '../alter-user-scram-credentials.js';
import { consumerGroupHeartbeatHandler } from '../consumer-group-heartbeat.js';
import { consumerGroupDescribeHandler } from '../consumer-group-describe.js';
import { shareGroupHeartbeatHandler } from '../share-group-heartbeat.js';
import { shareGroupDescribeHandler } from '../share-group-describe.js';
import { shareFetchHandler } from '../share-fetch.js';
import { shareAcknowledgeHandler } from '../share-acknowledge.js';
import { describeShareGroupOffsetsHandler } from '../describe-share-group-offsets.js';
import { alterShareGroupOffsetsHandler } from '../alter-share-group-offsets.js';
import { deleteShareGroupOffsetsHandler } from '../delete-share-group-offsets.js';

export function buildHandlers(): Handler[] {
  const handlers: Handler[] = [
    metadataHandler,
    produceHandler,
    fetchHandler,
    listOffsetsHandler,
    initProducerIdHandler,
    createTopicsHandler,
    deleteTopicsHandler,
    createPartitionsHandler,
    describeConfigsHandler,
    alterConfigsHandler,
    incrementalAlterConfigsHandler,
    describeClusterHandler,
    offsetForLeaderEpochHandler,
    deleteRecordsHandler,
    saslHandshakeHandler,
    describeProducersHandler,
    describeLogDirsHandler,
    findCoordinatorHandler,
    joinGroupHandler,
    syncGroupHandler,
    heartbeatHandler,
    consumerGroupHeartbeatHandler,
    consumerGroupDescribeHandler,
    leaveGroupHandler,
    offsetCommitHandler,
    offsetFetchHandler,
    listGroupsHandler,
    describeGroupsHandler,
    deleteGroupsHandler,
    offsetDeleteHandler,
    addPartitionsToTxnHandler,
    addOffsetsToTxnHandler,
    endTxnHandler,
    txnOffsetCommitHandler,
    describeTransactionsHandler,
    listTransactionsHandler,
    writeTxnMarkersHandler,
    describeClientQuotasHandler,
    alterClientQuotasHandler,
    describeAclsHandler,
    createAclsHandler,
    deleteAclsHandler,
    saslAuthenticateHandler,
    describeUserScramCredentialsHandler,
    alterUserScramCredentialsHandler,
    shareGroupHeartbeatHandler,
    shareGroupDescribeHandler,
    shareFetchHandler,
    shareAcknowledgeHandler,
    describeShareGroupOffsetsHandler,
    alterShareGroupOffsetsHandler,
    deleteShareGroupOffsetsHandler,
  ];
  const ranges = () => [...handlers].sort((a, b) => a.api.apiKey - b.api.apiKey).map(advertisedRange);
  handlers.push(apiVersionsHandler(ranges));
  return handlers;
}
