/** Most times a window is run again after running dry before it counts as it is. */
export const DRY_RETRIES = 2;

/**
 * One measured window whose queue must not run dry: a window that did measured the supply, not
 * the worker. `attempt(sizedFor)` fills the queue for a rate of `sizedFor` per second and runs the
 * window; one that ran dry all the same (a machine faster than every rate seen so far) is dropped
 * and run again, sized for twice the rate it reached, at most DRY_RETRIES times (`onDry` says so
 * each time). The last one counts as it is, and fails its scenario's "never ran dry" check.
 * P4 runs its own windows, the raw loop's and graphile-worker's through this.
 */
export async function fullWindow<S extends { readonly perSecond: number }>(
  rate: number,
  attempt: (sizedFor: number) => Promise<S>,
  ranDry: (sample: S) => boolean,
  onDry: (sample: S) => void,
): Promise<S> {
  let sizedFor = rate;
  for (let tries = 0; ; tries++) {
    const sample = await attempt(sizedFor);
    if (!ranDry(sample) || tries === DRY_RETRIES) return sample;
    onDry(sample);
    sizedFor = Math.max(sizedFor, sample.perSecond) * 2;
  }
}

/** A queue a window runs on: filled to a number of ready jobs, then worked for a while. */
export interface WindowQueue<S> {
  refill(ready: number): Promise<void>;
  run(ms: number): Promise<S>;
}

/**
 * `fullWindow` on a queue filled with `headroom` times the jobs `sizedFor` would take in `ms`,
 * plus `extra`, before each try (the raw loop and graphile-worker).
 */
export function queueWindow<S extends { readonly perSecond: number }>(
  queue: WindowQueue<S>,
  ms: number,
  rate: number,
  fill: { readonly headroom: number; readonly extra: number; readonly ranDry: (sample: S) => boolean },
  onDry: (perSecond: number) => void,
): Promise<S> {
  return fullWindow(
    rate,
    async (sizedFor) => {
      await queue.refill(Math.ceil((sizedFor * ms * fill.headroom) / 1000) + fill.extra);
      return queue.run(ms);
    },
    fill.ranDry,
    (sample) => onDry(sample.perSecond),
  );
}
