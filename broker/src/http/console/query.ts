// Validation of the message browser's query string: a bad value is answered
// 400 with a message that names the parameter and what it accepts.
import { DEFAULT_RECORDS, MAX_RECORDS } from './pages/messages.js';

export class BadQuery extends Error {}

/** A non-negative decimal integer (no sign, no exponent, no fraction). */
function intParam(v: string | undefined, name: string, min: number, max: number, dflt: number): number {
  if (v === undefined || v === '') return dflt;
  const n = /^\d{1,10}$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new BadQuery(`${name} must be an integer from ${min} to ${max} (got "${v.slice(0, 40)}")`);
  return n;
}

export interface BrowseQuery {
  topic: string;
  partition: number;
  n: number;
}

/** null when no topic is chosen yet (the form); throws BadQuery on a malformed parameter. */
export function parseBrowseQuery(query: Record<string, string | string[] | undefined>): { n: number; browse: BrowseQuery | null } {
  const one = (k: string): string | undefined => {
    const v = query[k];
    if (Array.isArray(v)) throw new BadQuery(`${k} is given more than once`);
    return v;
  };
  const n = intParam(one('n'), 'n', 1, MAX_RECORDS, DEFAULT_RECORDS);
  const topic = one('topic') ?? '';
  const partition = intParam(one('partition'), 'partition', 0, 2_147_483_647, 0);
  if (topic === '') return { n, browse: null };
  if (!/^[a-zA-Z0-9._-]{1,249}$/.test(topic)) throw new BadQuery('topic must be a topic name (1 to 249 of a-z, A-Z, 0-9, ".", "_", "-")');
  return { n, browse: { topic, partition, n } };
}
