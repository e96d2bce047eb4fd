/**
 * A tiny cache for lookups many callers make for the same key at the same moment (every
 * subscriber of one event re-checking the same token): concurrent callers share one load,
 * and its result is reused for `ttlMs`. `forget` drops a key at once (an invalidation).
 */
export class ShortMemo<K, V> {
  private readonly entries = new Map<K, Entry<V>>();

  constructor(private readonly ttlMs: number) {}

  get(key: K, load: () => Promise<V>, ttlMs = this.ttlMs): Promise<V> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) return hit.value;
    const value = load();
    const entry: Entry<V> = { value, until: now + ttlMs, settled: false, result: undefined };
    this.entries.set(key, entry);
    value.then(
      (result) => {
        entry.settled = true;
        entry.result = result;
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    if (this.entries.size > 10_000) this.prune(now);
    return value;
  }

  /**
   * What `get` would answer without waiting: the loaded value while it is fresh, or undefined
   * when nothing fresh is known yet (call `get`). Lets a hot path stay synchronous.
   */
  peek(key: K): { readonly value: V } | undefined {
    const hit = this.entries.get(key);
    if (!hit?.settled || hit.until <= Date.now()) return undefined;
    return { value: hit.result as V };
  }

  forget(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  private prune(now: number): void {
    for (const [key, entry] of this.entries) if (entry.until <= now) this.entries.delete(key);
  }
}

interface Entry<V> {
  readonly value: Promise<V>;
  readonly until: number;
  settled: boolean;
  result: V | undefined;
}
