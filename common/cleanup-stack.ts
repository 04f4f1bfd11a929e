// Releasing what a broker opened, in one place: each resource's close is
// pushed as the resource is opened, and run() closes them in reverse order,
// so a failed start and a stop release the same things the same way.

export class CleanupStack {
  private readonly closes: Array<() => unknown> = [];
  private running: Promise<void> | null = null;

  /** Registers the close of what was just opened; it runs before everything pushed earlier. */
  push(close: () => unknown): void {
    this.closes.push(close);
  }

  /**
   * Runs the closes, the last pushed first, each once the one before has
   * settled; a close that fails does not stop the others, and the first
   * failure rejects the run once all have run. Runs once: later calls share
   * the first run.
   */
  run(): Promise<void> {
    this.running ??= (async () => {
      const failures: unknown[] = [];
      for (let close = this.closes.pop(); close; close = this.closes.pop()) {
        try {
          await close();
        } catch (e) {
          failures.push(e);
        }
      }
      if (failures.length) throw failures[0];
    })();
    return this.running;
  }
}
