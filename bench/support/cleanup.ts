/**
 * Things to undo when the bench stops early (Ctrl-C, a crash): drop the scenario's database,
 * close the app. Each scenario registers what it created; the normal path undoes it itself.
 */
const pending = new Set<() => Promise<void>>();
const started: Array<Promise<void>> = [];

/**
 * Registers an undo step. The returned function runs it once: every later call (the normal
 * path racing a Ctrl-C) waits for that same run instead of returning early.
 */
export function onCleanup(undo: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null;
  const once = (): Promise<void> => {
    if (!running) {
      pending.delete(once);
      running = undo();
      started.push(running);
    }
    return running;
  };
  pending.add(once);
  return once;
}

/** Runs every registered undo step, newest first, and waits for those already under way. */
export async function cleanupAll(): Promise<void> {
  for (const undo of [...pending].reverse()) {
    try {
      await undo();
    } catch (e) {
      console.error('bench cleanup:', e instanceof Error ? e.message : e);
    }
  }
  await Promise.allSettled(started);
}
