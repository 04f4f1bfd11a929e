// DescribeLogDirs (key 35), v1-v4.
//   v1: the oldest served: the log dirs with the partitions they hold and their sizes.
//   v2: flexible encoding.
//   v3: a top-level error code.
//   v4: each dir's total and usable bytes.
// Needs DESCRIBE on the cluster, else CLUSTER_AUTHORIZATION_FAILED and no dir. Total
// and usable bytes are -1 (unknown): the store is Redis. Tiered topics' remote tier
// is a second dir, the lake (Kafka's DescribeLogDirs has no remote sizes; the dir
// is how kafka-log-dirs shows them).
import { DescribeLogDirs } from '../protocol/messages/describe-log-dirs.js';
import { ErrorCode } from '../../../common/errors.js';
import type { HandlerOf } from './support/types.js';
import { Op, authorizeCluster } from './support/authorize.js';
import { lakeUrl } from '../config/lake.js';

/**
 * One "log dir": the Redis behind this broker, named `redis:<key prefix>`.
 * Partition sizes are the streams' MEMORY USAGE, for the partitions this
 * broker leads (Kafka reports the replicas a broker hosts).
 */
export const describeLogDirsHandler: HandlerOf<typeof DescribeLogDirs> = {
  api: DescribeLogDirs,
  minVersion: 1,
  maxVersion: 4,
  async handle(req, ctx, b) {
    // Kafka: DESCRIBE on the cluster, else no log dir at all.
    if (!authorizeCluster(ctx, b, Op.DESCRIBE)) return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, results: [] };
    const wanted = req.topics;
    const all = await b.log.allTopics();
    const selected = wanted === null
      ? all.map((t) => ({ topic: t.name, partitions: Array.from({ length: t.partitions }, (_, i) => i) }))
      : wanted;
    const topics = [];
    const remote = [];
    for (const w of selected) {
      const t = all.find((x) => x.name === w.topic);
      if (!t) continue;
      const partitions = [];
      const inLake = [];
      const tiered = b.remoteLog !== undefined && b.log.isTiered(t);
      for (const index of w.partitions) {
        if (index < 0 || index >= t.partitions) continue;
        const p = b.log.partitionOf(t, index);
        if (!b.cluster.leads(p.unit)) continue;
        partitions.push({ partitionIndex: index, partitionSize: await b.log.sizeBytes(p.tp), offsetLag: 0, isFutureKey: false });
        if (tiered) {
          const extent = await b.remoteLog!.extent(p.tp, t.id).catch(() => null);
          inLake.push({ partitionIndex: index, partitionSize: extent?.bytes ?? 0, offsetLag: 0, isFutureKey: false });
        }
      }
      if (partitions.length) topics.push({ name: t.name, partitions });
      if (inLake.length) remote.push({ name: t.name, partitions: inLake });
    }
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      results: [
        { errorCode: ErrorCode.NONE, logDir: `redis:${b.config.keyPrefix}`, topics, totalBytes: -1, usableBytes: -1 },
        // the lake only where a tiered topic's partitions are asked for (kafka-log-dirs lists dirs in no fixed order)
        ...(remote.length > 0 ? [{ errorCode: ErrorCode.NONE, logDir: `lake:${lakeUrl(b.config.lake, b.config.dataDir)}`, topics: remote, totalBytes: -1, usableBytes: -1 }] : []),
      ],
    };
  },
};
