// Metadata v12 asked by topic id: the Java 4.x consumer does so for topics the
// broker assigned it by id (KIP-848 regex subscriptions), with the name left
// empty ("", its generated default) rather than null. As in Kafka, the id
// names the topic; an unknown id is UNKNOWN_TOPIC_ID.
import { describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../../broker/src/config/config.js';
import { LogManager } from '../../../broker/src/log/log-manager.js';
import { soloCluster } from '../../../broker/src/cluster/cluster-view.js';
import { createLogger } from '../../../common/logger/logger.js';
import { ErrorCode } from '../../../common/errors.js';
import { GroupCoordinator } from '../../../broker/src/groups/coordinator.js';
import { decode, encode } from '../../../broker/src/protocol/codec.js';
import { Reader } from '../../../broker/src/protocol/reader.js';
import type { BrokerServices } from '../../../broker/src/handlers/support/types.js';
import { metadataHandler } from '../../../broker/src/handlers/metadata.js';
import { Metadata } from '../../../broker/src/protocol/messages/metadata.js';
import { MemoryLogStore } from '../support/memory-log-store.js';
import { MemoryGroupStore } from '../support/memory-group-store.js';
import { noTransactions } from '../support/services.js';
import { FakeClock } from '../support/fake-clock.js';
import { newSession } from '../../../broker/src/security/session.js';

describe('Metadata by topic id', () => {
  it('names the topic of a known id even with an empty name; an unknown id is UNKNOWN_TOPIC_ID', async () => {
    const config = loadBrokerConfig([], {});
    const log = new LogManager(new MemoryLogStore(), config);
    const t = await log.createTopic('orders', 2, {});
    const cluster = soloCluster({ nodeId: config.nodeId, host: '127.0.0.1', port: 9092, rack: null });
    const b: BrokerServices = { config, clusterId: 'c', log, logger: createLogger('error', 'test'), cluster, groups: new GroupCoordinator(new MemoryGroupStore(), new FakeClock()), txn: noTransactions };
    const unknown = '00000000-0000-0000-0000-0000000000ff';
    const req = { topics: [{ topicId: t.id, name: '' }, { topicId: unknown, name: '' }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false };
    const decoded = decode(Metadata.request, 12, new Reader(encode(Metadata.request, 12, req).toBuffer()));
    const res = await metadataHandler.handle(decoded, { apiKey: 3, apiVersion: 12, correlationId: 1, clientId: 'java', session: newSession(1, '127.0.0.1') }, b);
    const out = decode(Metadata.response, 12, new Reader(encode(Metadata.response, 12, res!).toBuffer())) as Record<string, any>;
    expect(out.topics[0]).toMatchObject({ errorCode: ErrorCode.NONE, name: 'orders', topicId: t.id });
    expect(out.topics[0].partitions).toHaveLength(2);
    expect(out.topics[1]).toMatchObject({ errorCode: ErrorCode.UNKNOWN_TOPIC_ID, topicId: unknown });
  });
});
