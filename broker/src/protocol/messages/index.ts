import type { ApiDef } from '../schema.js';
import { ApiVersions } from './api-versions.js';
import { Metadata } from './metadata.js';
import { Produce } from './produce.js';
import { Fetch } from './fetch.js';
import { ListOffsets } from './list-offsets.js';
import { InitProducerId } from './init-producer-id.js';
import { CreateTopics } from './create-topics.js';
import { DeleteTopics } from './delete-topics.js';
import { CreatePartitions } from './create-partitions.js';
import { DescribeConfigs } from './describe-configs.js';
import { AlterConfigs } from './alter-configs.js';
import { IncrementalAlterConfigs } from './incremental-alter-configs.js';
import { DescribeCluster } from './describe-cluster.js';
import { OffsetForLeaderEpoch } from './offset-for-leader-epoch.js';
import { DeleteRecords } from './delete-records.js';
import { SaslHandshake } from './sasl-handshake.js';
import { FindCoordinator } from './find-coordinator.js';
import { JoinGroup } from './join-group.js';
import { SyncGroup } from './sync-group.js';
import { Heartbeat } from './heartbeat.js';
import { LeaveGroup } from './leave-group.js';
import { OffsetCommit } from './offset-commit.js';
import { OffsetFetch } from './offset-fetch.js';
import { ListGroups } from './list-groups.js';
import { DescribeGroups } from './describe-groups.js';
import { DeleteGroups } from './delete-groups.js';
import { OffsetDelete } from './offset-delete.js';
import { DescribeProducers } from './describe-producers.js';
import { DescribeLogDirs } from './describe-log-dirs.js';
import { AddPartitionsToTxn } from './add-partitions-to-txn.js';
import { AddOffsetsToTxn } from './add-offsets-to-txn.js';
import { EndTxn } from './end-txn.js';
import { WriteTxnMarkers } from './write-txn-markers.js';
import { TxnOffsetCommit } from './txn-offset-commit.js';
import { DescribeTransactions } from './describe-transactions.js';
import { ListTransactions } from './list-transactions.js';
import { DescribeClientQuotas } from './describe-client-quotas.js';
import { AlterClientQuotas } from './alter-client-quotas.js';
import { DescribeAcls } from './describe-acls.js';
import { CreateAcls } from './create-acls.js';
import { DeleteAcls } from './delete-acls.js';
import { SaslAuthenticate } from './sasl-authenticate.js';
import { DescribeUserScramCredentials } from './describe-user-scram-credentials.js';
import { AlterUserScramCredentials } from './alter-user-scram-credentials.js';
import { ConsumerGroupHeartbeat } from './consumer-group-heartbeat.js';
import { ConsumerGroupDescribe } from './consumer-group-describe.js';
import { ShareGroupHeartbeat } from './share-group-heartbeat.js';
import { ShareGroupDescribe } from './share-group-describe.js';
import { ShareFetch } from './share-fetch.js';
import { ShareAcknowledge } from './share-acknowledge.js';
import { DescribeShareGroupOffsets } from './describe-share-group-offsets.js';
import { AlterShareGroupOffsets } from './alter-share-group-offsets.js';
import { DeleteShareGroupOffsets } from './delete-share-group-offsets.js';

/** Every API we implement, in apiKey order (one name per line, so adding an API touches its own lines only). Each definition is imported from its own file. */
export const ALL_APIS: ApiDef[] = [
  ApiVersions,
  Metadata,
  Produce,
  Fetch,
  ListOffsets,
  InitProducerId,
  CreateTopics,
  DeleteTopics,
  CreatePartitions,
  DescribeConfigs,
  AlterConfigs,
  IncrementalAlterConfigs,
  DescribeCluster,
  OffsetForLeaderEpoch,
  DeleteRecords,
  SaslHandshake,
  FindCoordinator,
  JoinGroup,
  SyncGroup,
  Heartbeat,
  LeaveGroup,
  OffsetCommit,
  OffsetFetch,
  ListGroups,
  DescribeGroups,
  DeleteGroups,
  OffsetDelete,
  DescribeProducers,
  DescribeLogDirs,
  AddPartitionsToTxn,
  AddOffsetsToTxn,
  EndTxn,
  WriteTxnMarkers,
  TxnOffsetCommit,
  DescribeTransactions,
  ListTransactions,
  DescribeClientQuotas,
  AlterClientQuotas,
  DescribeAcls,
  CreateAcls,
  DeleteAcls,
  SaslAuthenticate,
  DescribeUserScramCredentials,
  AlterUserScramCredentials,
  ConsumerGroupHeartbeat,
  ConsumerGroupDescribe,
  ShareGroupHeartbeat,
  ShareGroupDescribe,
  ShareFetch,
  ShareAcknowledge,
  DescribeShareGroupOffsets,
  AlterShareGroupOffsets,
  DeleteShareGroupOffsets,
].sort((a, b) => a.apiKey - b.apiKey);
