// Kafka version-range strings: "3+", "0-7", "5", "none".

export interface VersionRange { min: number; max: number }

const NONE: VersionRange = { min: 1, max: 0 };
const cache = new Map<string, VersionRange>();

export function parseVersions(spec: string | undefined): VersionRange {
  if (spec === undefined || spec === 'none' || spec === '') return NONE;
  let r = cache.get(spec);
  if (r) return r;
  if (spec.endsWith('+')) r = { min: Number(spec.slice(0, -1)), max: Number.MAX_SAFE_INTEGER };
  else if (spec.includes('-')) {
    const [a, b] = spec.split('-');
    r = { min: Number(a), max: Number(b) };
  } else r = { min: Number(spec), max: Number(spec) };
  if (!Number.isInteger(r.min) || (r.max !== Number.MAX_SAFE_INTEGER && !Number.isInteger(r.max))) {
    throw new Error(`bad version range: ${spec}`);
  }
  cache.set(spec, r);
  return r;
}

export function inVersions(spec: string | undefined, v: number): boolean {
  const r = parseVersions(spec);
  return v >= r.min && v <= r.max;
}
