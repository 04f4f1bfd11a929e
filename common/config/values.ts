// The syntax of setting values, one for the broker and the archiver, whether a
// value comes from a file, the environment or a flag (Kafka's ConfigDef rules):
//   boolean   `true` or `false`, any case
//   integer   a whole number (JavaScript number syntax, e.g. 1048576 or 1e6)
//   duration  an integer count of the unit the key names: `*.ms` /
//             `*_MS` milliseconds, Kafka's `*.minutes`, `*.hours`, ...
// Blanks around a value are ignored. A value that does not parse gives
// undefined; the caller names the setting in its error.

const UNIT_MS = { ms: 1, seconds: 1_000, minutes: 60_000, hours: 3_600_000 } as const;
export type DurationUnit = keyof typeof UNIT_MS;

export function parseBoolean(raw: string): boolean | undefined {
  const v = raw.trim().toLowerCase();
  return v === 'true' ? true : v === 'false' ? false : undefined;
}

/** A whole number >= min; undefined when blank, not whole, or below min. */
export function parseInteger(raw: string, min = Number.NEGATIVE_INFINITY): number | undefined {
  if (raw.trim() === '') return undefined;
  const n = Number(raw);
  return Number.isInteger(n) && n >= min ? n : undefined;
}

/** A duration in ms from an integer count of `unit` (>= min of that unit); undefined when it does not parse. */
export function parseDurationMs(raw: string, unit: DurationUnit = 'ms', min = Number.NEGATIVE_INFINITY): number | undefined {
  const n = parseInteger(raw, min);
  return n === undefined ? undefined : n * UNIT_MS[unit];
}
