// AlterConfigs (key 33), v0-v2.
//   v0-v1: replaces a resource's config set: what the request does not name is
//       unset; v1 is answered before throttling.
//   v2: flexible encoding.
// IncrementalAlterConfigs (key 44), v0-v1.
//   v0: one operation per config: SET, DELETE, APPEND or SUBTRACT (KIP-339).
//   v1: flexible encoding.
// Both alter topic configs and group configs (Kafka's GROUP resource, type 32;
// the group need not exist); other resources: INVALID_REQUEST. Validated as
// Kafka does before anything is stored; ALTER_CONFIGS on the topic or group.
import { AlterConfigs } from '../protocol/messages/alter-configs.js';
import { IncrementalAlterConfigs } from '../protocol/messages/incremental-alter-configs.js';
import { ErrorCode } from '../../../common/errors.js';
import { applyListOp, validateTopicConfig, validateTopicConfigSet } from '../topics/topic-configs.js';
import { ResourceType, configAccessDenied } from './support/config-resources.js';
import { applyGroupListOp } from '../groups/config/group-config-rules.js';
import { groupErrorCode } from './support/group-common.js';
import { Op } from './support/authorize.js';
import type { BrokerServices, HandlerOf } from './support/types.js';
import type { Element, RequestOf, ResponseOf } from '../protocol/typed.js';

const OP_SET = 0;
const OP_DELETE = 1;
const OP_APPEND = 2;
const OP_SUBTRACT = 3;

/** A resource of either request: AlterConfigs' configs carry no operation (each is a SET). */
type Resource = Element<RequestOf<typeof AlterConfigs>['resources']> | Element<RequestOf<typeof IncrementalAlterConfigs>['resources']>;
/** One resource's answer (both responses spell it alike). */
type ResourceAnswer = Element<ResponseOf<typeof AlterConfigs>['responses']> & Element<ResponseOf<typeof IncrementalAlterConfigs>['responses']>;

/** Applies config changes to a group's configs; `replace` as for topics. */
async function alterGroup(b: BrokerServices, r: Resource, validateOnly: boolean, replace: boolean): Promise<ResourceAnswer> {
  const head = { resourceType: r.resourceType, resourceName: r.resourceName };
  const fail = (errorCode: number, errorMessage: string) => ({ ...head, errorCode, errorMessage });
  const configs = b.groupConfigs!;
  if (r.resourceName === '') return fail(ErrorCode.INVALID_REQUEST, 'Group name must not be empty');
  const nulls = r.configs.filter((c) => c.value === null && ('configOperation' in c ? c.configOperation : OP_SET) !== OP_DELETE).map((c) => c.name);
  if (nulls.length > 0) return fail(ErrorCode.INVALID_REQUEST, `Null value not supported for : ${nulls.join(', ')}`);
  try {
    const next: Record<string, string> = replace ? {} : await configs.overrides(r.resourceName);
    for (const c of r.configs) {
      const op = 'configOperation' in c ? c.configOperation : OP_SET;
      if (op === OP_DELETE) delete next[c.name];
      else if (op === OP_SET) next[c.name] = c.value!;
      else if (op === OP_APPEND || op === OP_SUBTRACT) {
        const v = applyGroupListOp(op === OP_APPEND ? 'APPEND' : 'SUBTRACT', c.name, next[c.name], c.value, configs.broker);
        if ('error' in v) return fail(ErrorCode.INVALID_CONFIG, v.error);
        next[c.name] = v.value;
      } else return fail(ErrorCode.INVALID_REQUEST, `Unknown config operation ${op}`);
    }
    const problem = await configs.replace(r.resourceName, next, validateOnly);
    if (problem !== null) return fail(ErrorCode.INVALID_CONFIG, problem);
  } catch (e) {
    return fail(groupErrorCode(e), e instanceof Error ? e.message : String(e));
  }
  return { ...head, errorCode: ErrorCode.NONE, errorMessage: null };
}

/** Applies config changes to a topic or a group. */
function alter(b: BrokerServices, r: Resource, validateOnly: boolean, replace: boolean): Promise<ResourceAnswer> {
  if (r.resourceType === ResourceType.GROUP && b.groupConfigs) return alterGroup(b, r, validateOnly, replace);
  return alterTopic(b, r, validateOnly, replace);
}

/** Applies config changes to a topic; `replace` is the legacy AlterConfigs semantics (unset everything not named). */
async function alterTopic(b: BrokerServices, r: Resource, validateOnly: boolean, replace: boolean): Promise<ResourceAnswer> {
  const head = { resourceType: r.resourceType, resourceName: r.resourceName };
  const fail = (errorCode: number, errorMessage: string) => ({ ...head, errorCode, errorMessage });
  if (r.resourceType !== ResourceType.TOPIC) return fail(ErrorCode.INVALID_REQUEST, 'Only topic and group configs can be altered');
  const t = await b.log.topic(r.resourceName);
  if (!t) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${r.resourceName}' does not exist.`);
  const next: Record<string, string> = replace ? {} : { ...t.configs };
  for (const c of r.configs) {
    const op = 'configOperation' in c ? c.configOperation : OP_SET;
    if (op === OP_DELETE) {
      const problem = validateTopicConfig(c.name, null);
      if (problem) return fail(ErrorCode.INVALID_CONFIG, problem);
      delete next[c.name];
      continue;
    }
    let value = c.value;
    if (op === OP_APPEND || op === OP_SUBTRACT) {
      const r = applyListOp(op === OP_APPEND ? 'APPEND' : 'SUBTRACT', c.name, next[c.name], c.value, b.config);
      if ('error' in r) return fail(ErrorCode.INVALID_CONFIG, r.error);
      value = r.value;
    } else if (op !== OP_SET) return fail(ErrorCode.INVALID_REQUEST, `Unknown config operation ${op}`);
    const problem = validateTopicConfig(c.name, value);
    if (problem) return fail(ErrorCode.INVALID_CONFIG, problem);
    if (value === null) delete next[c.name];
    else next[c.name] = value;
  }
  const conflict = validateTopicConfigSet(next, b.config, t.configs);
  if (conflict) return fail(ErrorCode.INVALID_CONFIG, conflict);
  if (!validateOnly) await b.log.updateTopic({ ...t, configs: next });
  return { ...head, errorCode: ErrorCode.NONE, errorMessage: null };
}

export const alterConfigsHandler: HandlerOf<typeof AlterConfigs> = {
  api: AlterConfigs,
  minVersion: 0,
  maxVersion: 2,
  async handle(req, ctx, b) {
    const responses = [];
    for (const r of req.resources) {
      const denied = configAccessDenied(ctx, b, Op.ALTER_CONFIGS, r);
      responses.push(denied ? { resourceType: r.resourceType, resourceName: r.resourceName, ...denied } : await alter(b, r, req.validateOnly, true));
    }
    return { throttleTimeMs: 0, responses };
  },
};

export const incrementalAlterConfigsHandler: HandlerOf<typeof IncrementalAlterConfigs> = {
  api: IncrementalAlterConfigs,
  minVersion: 0,
  maxVersion: 1,
  async handle(req, ctx, b) {
    const responses = [];
    for (const r of req.resources) {
      const denied = configAccessDenied(ctx, b, Op.ALTER_CONFIGS, r);
      responses.push(denied ? { resourceType: r.resourceType, resourceName: r.resourceName, ...denied } : await alter(b, r, req.validateOnly, false));
    }
    return { throttleTimeMs: 0, responses };
  },
};
