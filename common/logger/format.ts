// The values of `log.format` (RUNNEL_LOG_FORMAT), apart from the logger so the
// config loaders can check a value without loading pino.
export type LogFormat = 'json' | 'pretty';
export const LOG_FORMATS: readonly LogFormat[] = ['json', 'pretty'];

export function isLogFormat(s: string): s is LogFormat {
  return LOG_FORMATS.some((f) => f === s);
}
