interface Waiting<K, V> {
  readonly key: K;
  readonly resolve: (value: V) => void;
  readonly reject: (error: unknown) => void;
}

/** How a BatchLoader shares its loads (see the fields). */
export interface BatchOptions {
  /**
   * False: only loads of the same tick are shared, and each key is forgotten as its batch is
   * sent, so a load never joins a statement sent before it was asked for (for contexts that
   * outlive a request, where a cache would go stale, and for checks that must see every
   * change committed before they were asked for: a token's revocation). Default true.
   */
  readonly keep?: boolean;
  /**
   * True: the first load of a tick is sent at once, alone, and only the loads that follow it in
   * the same tick wait for its end and go together. For a load on a request's critical path
   * (the token check): a lone request pays no wait, a burst of requests arriving together pays
   * two statements instead of one each. Default false (every load of a tick waits for its end).
   */
  readonly firstAtOnce?: boolean;
}
// why: a batch runs in the async context of the load that opened it, so a loader shared between
// requests (the token check, a decision's run read) is never loaded inside a transaction: its
// statement would run in that transaction for every caller of the batch.

/**
 * A tiny batching cache (the DataLoader idea): every `load` issued while GraphQL resolves one
 * level of the tree is answered by ONE `loadMany` call, and each key is loaded at most once.
 * With `keep` (the default) keep one instance per request: it caches without expiry; without it
 * one instance may serve every request (it shares only loads asked for before a batch is sent).
 */
export class BatchLoader<K, V> {
  private readonly cache = new Map<string, Promise<V>>();
  private queue: Array<Waiting<K, V>> = [];
  private readonly keep: boolean;
  private readonly firstAtOnce: boolean;
  /** With `firstAtOnce`: a tick's first load went already, the rest of the tick waits. */
  private tickOpen = false;

  constructor(
    private readonly keyOf: (key: K) => string,
    /** Loads the given keys; keys missing from the answer resolve to `missing`. */
    private readonly loadMany: (keys: K[]) => Promise<Map<string, V>>,
    private readonly missing: V,
    options: BatchOptions = {},
  ) {
    this.keep = options.keep ?? true;
    this.firstAtOnce = options.firstAtOnce ?? false;
  }

  load(key: K): Promise<V> {
    const id = this.keyOf(key);
    const cached = this.cache.get(id);
    if (cached) return cached;
    const promise = new Promise<V>((resolve, reject) => this.queue.push({ key, resolve, reject }));
    this.cache.set(id, promise);
    if (this.firstAtOnce && !this.tickOpen) {
      this.tickOpen = true;
      setImmediate(() => {
        this.tickOpen = false;
        if (this.queue.length > 0) void this.flush();
      });
      void this.flush();
    } else if (!this.firstAtOnce && this.queue.length === 1) {
      // why: setImmediate (not a microtask) lets every sibling field resolver of this level,
      // which GraphQL starts across several promise ticks, join the same batch.
      setImmediate(() => void this.flush());
    }
    return promise;
  }

  private async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    if (!this.keep) for (const w of batch) this.cache.delete(this.keyOf(w.key));
    try {
      const found = await this.loadMany(batch.map((w) => w.key));
      for (const w of batch) w.resolve(found.get(this.keyOf(w.key)) ?? this.missing);
    } catch (error) {
      for (const w of batch) {
        if (this.keep) this.cache.delete(this.keyOf(w.key));
        w.reject(error);
      }
    }
  }
}
