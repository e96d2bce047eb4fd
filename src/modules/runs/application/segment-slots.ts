interface Waiter {
  readonly grant: () => void;
  readonly refuse: () => void;
}

/**
 * The execution slots of one process (WORKER_CONCURRENCY). A segment launched `now` (a
 * continuation some request is waiting on, a run started without a worker) takes a slot at
 * once, even past the limit, as before slots existed; one launched `when-free` (the worker's
 * claims, some of them claimed ahead: WORKER_PREFETCH) waits, first come first served, until
 * fewer than `limit` segments execute. A wait ends early, with false, when its signal aborts
 * (a cancel, the shutdown) or the queue closes: the segment then never starts.
 */
export class SegmentSlots {
  private executing = 0;
  private readonly waiting: Waiter[] = [];
  private closed = false;

  constructor(private readonly limit: number) {}

  /** Segments executing now (holding a slot). */
  get busy(): number {
    return this.executing;
  }

  /** Segments waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Takes a slot: at once for `now`; for `when-free` once one is free. False: it never did. */
  enter(mode: 'now' | 'when-free', signal: AbortSignal): Promise<boolean> {
    if (signal.aborted || (mode === 'when-free' && this.closed)) return Promise.resolve(false);
    if (mode === 'now' || (this.executing < this.limit && this.waiting.length === 0)) {
      this.executing++;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const onAbort = () => {
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        resolve(false);
      };
      const waiter: Waiter = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          this.executing++;
          resolve(true);
        },
        refuse: () => {
          signal.removeEventListener('abort', onAbort);
          resolve(false);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** Ends every wait with false, and any later `when-free` one at once (the shutdown). */
  closeQueue(): void {
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) waiter.refuse();
  }

  /** Gives a slot back; the longest waiter takes it while the process is under its limit. */
  leave(): void {
    this.executing--;
    while (this.executing < this.limit && this.waiting.length > 0) this.waiting.shift()!.grant();
  }
}
