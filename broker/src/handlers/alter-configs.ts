import { AlterConfigs } from '../protocol/messages/alter-configs.js';
import { IncrementalAlterConfigs } from '../protocol/messages/incremental-alter-configs.js';
import { ErrorCode } from '../../../common/errors.js';
import { applyListOp, validateTopicConfig, validateTopicConfigSet } from '../topics/topic-configs.js';
import { ResourceType, configAccessDenied } from './config-resources.js';
import { Op } from './authorize.js';
import type { BrokerServices, Handler } from './types.js';

const OP_SET = 0;
const OP_DELETE = 1;
const OP_APPEND = 2;
const OP_SUBTRACT = 3;

interface Change { name: string; value: string | null; configOperation?: number }
interface Resource { resourceType: number; resourceName: string; configs: Change[] }

/** Applies config changes to a topic; `replace` is the legacy AlterConfigs semantics (unset everything not named). */
async function alterTopic(b: BrokerServices, r: Resource, validateOnly: boolean, replace: boolean): Promise<Record<string, unknown>> {
  const head = { resourceType: r.resourceType, resourceName: r.resourceName };
  const fail = (errorCode: number, errorMessage: string) => ({ ...head, errorCode, errorMessage });
  if (r.resourceType !== ResourceType.TOPIC) return fail(ErrorCode.INVALID_REQUEST, 'Only topic configs can be altered');
  const t = await b.log.topic(r.resourceName);
  if (!t) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${r.resourceName}' does not exist.`);
  const next: Record<string, string> = replace ? {} : { ...t.configs };
  for (const c of r.configs) {
    const op = c.configOperation ?? OP_SET;
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
  const conflict = validateTopicConfigSet(next, b.config);
  if (conflict) return fail(ErrorCode.INVALID_CONFIG, conflict);
  if (!validateOnly) await b.log.updateTopic({ ...t, configs: next });
  return { ...head, errorCode: ErrorCode.NONE, errorMessage: null };
}

export const alterConfigsHandler: Handler = {
  api: AlterConfigs,
  minVersion: 0,
  maxVersion: 2,
  async handle(req, ctx, b) {
    const responses = [];
    for (const r of req.resources as Resource[]) {
      const denied = configAccessDenied(ctx, b, Op.ALTER_CONFIGS, r);
      responses.push(denied ? { resourceType: r.resourceType, resourceName: r.resourceName, ...denied } : await alterTopic(b, r, req.validateOnly, true));
    }
    return { throttleTimeMs: 0, responses };
  },
};

export const incrementalAlterConfigsHandler: Handler = {
  api: IncrementalAlterConfigs,
  minVersion: 0,
  maxVersion: 1,
  async handle(req, ctx, b) {
    const responses = [];
    for (const r of req.resources as Resource[]) {
      const denied = configAccessDenied(ctx, b, Op.ALTER_CONFIGS, r);
      responses.push(denied ? { resourceType: r.resourceType, resourceName: r.resourceName, ...denied } : await alterTopic(b, r, req.validateOnly, false));
    }
    return { throttleTimeMs: 0, responses };
  },
};
