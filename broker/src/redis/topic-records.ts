// Topic records as stored in the `topics` hash (docs/redis-keys.md).
import type { TopicRecord } from '../storage/log-store.js';

export function encodeTopic(t: TopicRecord): string {
  return JSON.stringify({ id: t.id, partitions: t.partitions, configs: t.configs, created: t.created, ...(t.placement ? { placement: t.placement } : {}) });
}

/**
 * A topic record as stored. One that is not a JSON object is returned with an
 * unusable partition count (NaN), so the log manager quarantines it (logged,
 * not served, deletable) instead of the broker failing to start.
 */
export function decodeTopic(name: string, json: string): TopicRecord {
  try {
    const v: unknown = JSON.parse(json);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return { name, ...(v as Omit<TopicRecord, 'name'>) };
  } catch {
    /* falls through */
  }
  return { name, id: `invalid-record:${name}`, partitions: Number.NaN, configs: {}, created: 0 };
}
