/** How deliveries are retried (WEBHOOKS_RETRY_* settings, docs/webhooks.md "Retries"). */
export interface RetrySettings {
  /** The first retry waits up to this long; each later one up to twice the one before. */
  readonly baseDelayMs: number;
  /** No wait is longer than this. */
  readonly maxDelayMs: number;
  /** A delivery gives up once its next try would fall later than this after the event. */
  readonly windowSeconds: number;
}

/**
 * When to try a failed delivery again, or null to give up: exponential backoff with full
 * jitter (a random wait between 0 and base * 2^(attempts-1), capped), bounded by the window
 * counted from the event. why full jitter: many endpoints failing at once (an outage) must
 * not come back in lockstep.
 */
export function nextAttemptAt(
  settings: RetrySettings,
  attempts: number,
  eventAt: Date,
  now: Date,
  random: () => number = Math.random,
): Date | null {
  const ceiling = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** Math.min(attempts - 1, 30));
  const next = new Date(now.getTime() + Math.floor(random() * ceiling));
  const deadline = eventAt.getTime() + settings.windowSeconds * 1000;
  return next.getTime() > deadline ? null : next;
}
