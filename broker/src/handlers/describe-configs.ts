// DescribeConfigs (key 32), v1-v4.
//   v1: the oldest served: include_synonyms; each config's source and synonyms.
//   v2: answered before throttling.
//   v3: include_documentation; each config's type and documentation.
//   v4: flexible encoding.
// Topic, group (Kafka's GROUP resource, type 32: the group configs, set or
// not, whether or not the group exists) and broker resources (this broker's
// only); anything else is INVALID_REQUEST. DESCRIBE_CONFIGS on the topic,
// the group or the cluster; sensitive broker values are never shown.
import { DescribeConfigs } from '../protocol/messages/describe-configs.js';
import { ErrorCode } from '../../../common/errors.js';
import { brokerConfigEntries } from '../config/config.js';
import { resolveTopicConfigs, SOURCE_ID } from '../topics/topic-configs.js';
import { ResourceType, configAccessDenied } from './support/config-resources.js';
import { GROUP_CONFIG_TYPE_ID } from '../groups/config/group-config-defs.js';
import { groupErrorCode } from './support/group-common.js';
import { Op } from './support/authorize.js';
import type { BrokerServices, HandlerOf } from './support/types.js';
import type { Element, RequestOf, ResponseOf } from '../protocol/typed.js';

type Resource = Element<RequestOf<typeof DescribeConfigs>['resources']>;
type ResourceAnswer = Element<ResponseOf<typeof DescribeConfigs>['results']>;

export const describeConfigsHandler: HandlerOf<typeof DescribeConfigs> = {
  api: DescribeConfigs,
  minVersion: 1,
  maxVersion: 4,
  async handle(req, ctx, b) {
    const results = [];
    for (const r of req.resources) {
      const denied = configAccessDenied(ctx, b, Op.DESCRIBE_CONFIGS, r);
      results.push(denied ? { resourceType: r.resourceType, resourceName: r.resourceName, ...denied, configs: [] } : await describe(b, r, req.includeSynonyms, req.includeDocumentation));
    }
    return { throttleTimeMs: 0, results };
  },
};

async function describe(b: BrokerServices, r: Resource, synonyms: boolean, docs: boolean): Promise<ResourceAnswer> {
  const head = { resourceType: r.resourceType, resourceName: r.resourceName };
  const wanted = (name: string): boolean => r.configurationKeys === null || r.configurationKeys.includes(name);
  if (r.resourceType === ResourceType.TOPIC) {
    const t = await b.log.topic(r.resourceName);
    if (!t) return { ...head, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `Topic '${r.resourceName}' does not exist.`, configs: [] };
    const configs = resolveTopicConfigs(t.configs, b.config).filter((c) => wanted(c.name)).map((c) => ({
      name: c.name,
      value: c.value,
      readOnly: false,
      configSource: SOURCE_ID[c.source],
      isSensitive: false,
      synonyms: synonyms ? [{ name: c.name, value: c.value, source: SOURCE_ID[c.source] }] : [],
      configType: c.type,
      documentation: docs ? c.doc : null,
    }));
    return { ...head, errorCode: ErrorCode.NONE, errorMessage: null, configs };
  }
  if (r.resourceType === ResourceType.GROUP && b.groupConfigs) {
    if (r.resourceName === '') return { ...head, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Group name must not be empty', configs: [] };
    let described;
    try {
      described = await b.groupConfigs.describe(r.resourceName);
    } catch (e) {
      return { ...head, errorCode: groupErrorCode(e), errorMessage: e instanceof Error ? e.message : String(e), configs: [] };
    }
    const configs = described.filter((c) => wanted(c.name)).map((c) => ({
      name: c.name,
      value: c.value,
      readOnly: false,
      configSource: c.source,
      isSensitive: false,
      synonyms: synonyms ? c.synonyms : [],
      configType: GROUP_CONFIG_TYPE_ID[c.type],
      documentation: docs ? c.doc : null,
    }));
    return { ...head, errorCode: ErrorCode.NONE, errorMessage: null, configs };
  }
  if (r.resourceType === ResourceType.BROKER) {
    if (r.resourceName !== '' && r.resourceName !== String(b.config.nodeId)) {
      return { ...head, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unexpected broker id ${r.resourceName}`, configs: [] };
    }
    const configs = brokerConfigEntries(b.config).filter((c) => wanted(c.key)).map((c) => ({
      name: c.key,
      value: c.value,
      readOnly: true,
      configSource: c.isDefault ? SOURCE_ID.DEFAULT_CONFIG : SOURCE_ID.STATIC_BROKER_CONFIG,
      // Kafka never returns the value of a sensitive config (PASSWORD type), only that it is set.
      isSensitive: c.sensitive,
      synonyms: [],
      configType: 0,
      documentation: null,
    }));
    return { ...head, errorCode: ErrorCode.NONE, errorMessage: null, configs };
  }
  return { ...head, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unsupported resource type ${r.resourceType}`, configs: [] };
}
