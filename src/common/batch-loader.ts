interface Waiting<K, V> {
  readonly key: K;
  readonly resolve: (value: V) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * A tiny per-request batching cache (the DataLoader idea): every `load` issued while GraphQL
 * resolves one level of the tree is answered by ONE `loadMany` call, and each key is loaded
 * at most once. Keep one instance per request: it caches without expiry.
 */
export class BatchLoader<K, V> {
  private readonly cache = new Map<string, Promise<V>>();
  private queue: Array<Waiting<K, V>> = [];

  constructor(
    private readonly keyOf: (key: K) => string,
    /** Loads the given keys; keys missing from the answer resolve to `missing`. */
    private readonly loadMany: (keys: K[]) => Promise<Map<string, V>>,
    private readonly missing: V,
    /**
     * False: only loads of the same tick are shared, and each key is forgotten as its batch is
     * sent, so a load never joins a statement sent before it was asked for (for contexts that
     * outlive a request, where a cache would go stale, and for checks that must see every
     * change committed before they were asked for: a token's revocation).
     */
    private readonly keep: boolean = true,
  ) {}

  load(key: K): Promise<V> {
    const id = this.keyOf(key);
    const cached = this.cache.get(id);
    if (cached) return cached;
    const promise = new Promise<V>((resolve, reject) => {
      this.queue.push({ key, resolve, reject });
      // why: setImmediate (not a microtask) lets every sibling field resolver of this level,
      // which GraphQL starts across several promise ticks, join the same batch.
      if (this.queue.length === 1) setImmediate(() => void this.flush());
    });
    this.cache.set(id, promise);
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
