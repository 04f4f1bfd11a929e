// Fault injection for crash tests only: RUNNEL_ARCHIVER_CRASH_POINTS="after-upload:0.3,after-commit:0.2"
// makes the process SIGKILL itself at that point with that probability. Unset in production.
const crashPoints = new Map<string, number>(
  (process.env.RUNNEL_ARCHIVER_CRASH_POINTS ?? '')
    .split(',')
    .filter(Boolean)
    .map((kv) => {
      const [k, v] = kv.split(':');
      return [k!.trim(), Number(v ?? '1')] as [string, number];
    }),
);

export function crashPoint(name: string) {
  const p = crashPoints.get(name);
  if (p !== undefined && Math.random() < p) process.kill(process.pid, 'SIGKILL');
}
