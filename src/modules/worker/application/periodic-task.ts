/**
 * Runs an async task every `everyMs` and at once when woken, never two passes at a time: a
 * wake during a pass asks for one more pass right after it. A pass that reports `true` (more
 * work may be waiting) is followed by another at once. `stop()` clears the timer and waits
 * for the pass in progress, so nothing touches the database after it resolved.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;

  constructor(
    private readonly everyMs: number,
    private readonly task: () => Promise<boolean>,
    private readonly onError: (error: unknown) => void,
  ) {}

  get active(): boolean {
    return !this.stopped;
  }

  /** Starts the timer and runs a first pass at once. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.timer = setInterval(() => this.wake(), this.everyMs);
    this.wake();
  }

  /** Runs a pass now (or right after the one in progress); a no-op once stopped. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = null;
    });
  }

  /** Stops the timer and resolves once the pass in progress (if any) has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      try {
        if (await this.task()) this.again = true;
      } catch (e) {
        this.onError(e);
      }
    } while (this.again && !this.stopped);
  }
}
