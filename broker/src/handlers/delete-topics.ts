// DeleteTopics (key 20), v1-v6.
//   v1: the oldest served: topic names in, one error per topic, the throttle time.
//   v2: answered before throttling.
//   v3: TOPIC_DELETION_DISABLED becomes a possible error.
//   v4: flexible encoding.
//   v5: a per-topic error message; THROTTLING_QUOTA_EXCEEDED possible (KIP-599).
//   v6: topics named by name or by id (KIP-516); an unknown id is UNKNOWN_TOPIC_ID.
// delete.topic.enable=false answers TOPIC_DELETION_DISABLED. DELETE on the topic is
// asked before saying whether it exists; internal topics are never deleted.
import { DeleteTopics } from '../protocol/messages/delete-topics.js';
import { isInternalTopic } from '../log/internal-topics.js';
import { ErrorCode } from '../../../common/errors.js';
import { ZERO_UUID } from '../protocol/uuid.js';
import type { TopicRecord } from '../storage/log-store.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';


export const deleteTopicsHandler: HandlerOf<typeof DeleteTopics> = {
  api: DeleteTopics,
  minVersion: 1,
  maxVersion: 6,
  async handle(req, ctx, b) {
    const wanted: Array<{ name: string | null; topicId: string }> = ctx.apiVersion >= 6
      ? req.topics
      : req.topicNames.map((name) => ({ name, topicId: ZERO_UUID }));
    const responses = [];
    for (const w of wanted) {
      let t: TopicRecord | null = null;
      if (w.name !== null) t = await b.log.topic(w.name);
      else if (w.topicId !== ZERO_UUID) t = await b.log.topicById(w.topicId);
      const name = t?.name ?? w.name;
      if (!b.config.deleteTopicEnable) {
        responses.push({ name, topicId: w.topicId, errorCode: ErrorCode.TOPIC_DELETION_DISABLED, errorMessage: 'delete.topic.enable is false' });
        continue;
      }
      // Kafka: DELETE on the topic, asked before saying whether it exists.
      if (name !== null && !authorize(ctx, b, Op.DELETE, Resource.TOPIC, name)) {
        responses.push({ name, topicId: w.topicId, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: 'Authorization failed.' });
        continue;
      }
      if (!t) {
        const code = w.name === null ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        responses.push({ name, topicId: w.topicId, errorCode: code, errorMessage: null });
        continue;
      }
      if (isInternalTopic(t.name)) {
        // The broker owns it (the coordinators write it): never deleted through the API.
        responses.push({ name: t.name, topicId: t.id, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Topic ${t.name} is an internal topic and cannot be deleted` });
        continue;
      }
      await b.log.deleteTopic(t);
      responses.push({ name: t.name, topicId: t.id, errorCode: ErrorCode.NONE, errorMessage: null });
    }
    return { throttleTimeMs: 0, responses };
  },
};
