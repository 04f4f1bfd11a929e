// Fault injection for crash tests only: an environment variable such as
// RUNNEL_ARCHIVER_CRASH_POINTS="after-upload:0.3,after-commit:0.2" makes the
// process SIGKILL itself at that point with that probability (1 when no
// probability is given). Unset in production: then a crash point costs a map lookup.
export type CrashPoint = (name: string) => void;

export function crashPointsFrom(spec: string | undefined): CrashPoint {
  const points = new Map<string, number>(
    (spec ?? '')
      .split(',')
      .filter(Boolean)
      .map((kv) => {
        const [k, v] = kv.split(':');
        return [k!.trim(), Number(v ?? '1')] as [string, number];
      }),
  );
  return (name) => {
    const p = points.get(name);
    if (p !== undefined && Math.random() < p) process.kill(process.pid, 'SIGKILL');
  };
}
