/** What the per-event handler of a stream may do. */
export interface StreamControl<TOut> {
  emit(value: TOut): void;
  /** Ends the stream after what was emitted so far. */
  end(): void;
  /** Ends the stream with an error (e.g. FORBIDDEN when authorisation was lost). */
  fail(error: unknown): void;
}

/**
 * Ends the live source. A source that can be cut off (Redis) sets `lost`: it resolves with the
 * error the stream then fails with, after the values emitted so far.
 */
export type SourceEnd = (() => Promise<void>) & { readonly lost?: Promise<unknown> };

export interface StreamSpec<TIn, TOut> {
  /** Subscribes to the live source; resolves once active, with its unsubscribe function. */
  subscribe(push: (event: TIn) => void): Promise<SourceEnd>;
  /** Runs after the live subscription is active (snapshots, replays); events queue meanwhile. */
  start?(control: StreamControl<TOut>): Promise<void>;
  /**
   * Handles one live event, in arrival order. A handler that can decide without waiting should
   * return nothing (not a promise): the event is then handled inside the publish, with no
   * promise per subscriber, whenever no earlier event is still being handled.
   */
  onEvent(event: TIn, control: StreamControl<TOut>): Promise<void> | void;
}

/**
 * Where a consumer can take a stream's values as they are emitted, synchronously, instead of
 * pulling them with `next()`: `attach(sink)`. The sink is offered a value only while the
 * consumer waits in `next()` with nothing queued, so everything emitted earlier has already
 * been handed over; it returns true when it delivered the value itself, false to have it
 * queued for `next()` as usual. The end and a failure always arrive through `next()`.
 */
export const DIRECT_SINK = Symbol('subscriptionStream.directSink');
export type DirectSink<T> = (value: T) => boolean;
export interface DirectStream<T> extends AsyncIterableIterator<T> {
  [DIRECT_SINK](sink: DirectSink<T>): void;
}

export function isDirectStream<T>(value: AsyncIterableIterator<T>): value is DirectStream<T> {
  return typeof (value as Partial<DirectStream<T>>)[DIRECT_SINK] === 'function';
}

/**
 * An async iterator for a GraphQL subscription built from a live source plus a start phase.
 * Live events that arrive during the start phase wait in order, so nothing is missed between
 * a snapshot and the live feed. Unlike an async generator, `return()` ends it at once even
 * while it waits, and always unsubscribes.
 */
export function subscriptionStream<TIn, TOut>(spec: StreamSpec<TIn, TOut>): DirectStream<TOut> {
  const out: TOut[] = [];
  const waiters: Array<{ resolve: (r: IteratorResult<TOut>) => void; reject: (e: unknown) => void }> = [];
  let finished = false;
  let failure: unknown = null;
  let unsubscribe: (() => Promise<void>) | null = null;
  let chain: Promise<void> = Promise.resolve();
  /** Tasks on the chain not yet done (the start phase counts as one). */
  let queued = 1;
  let sink: DirectSink<TOut> | null = null;

  const flush = (): void => {
    while (waiters.length > 0 && (out.length > 0 || finished)) {
      const w = waiters.shift()!;
      if (out.length > 0) w.resolve({ value: out.shift()!, done: false });
      else if (failure !== null) {
        w.reject(failure);
        failure = null;
      } else w.resolve({ value: undefined, done: true });
    }
  };
  const close = async (): Promise<void> => {
    if (!finished) finished = true;
    const u = unsubscribe;
    unsubscribe = null;
    flush();
    if (u) await u();
  };
  const control: StreamControl<TOut> = {
    emit: (v) => {
      if (finished) return;
      if (sink && out.length === 0 && waiters.length > 0 && sink(v)) return;
      out.push(v);
      flush();
    },
    end: () => void close(),
    fail: (e) => {
      if (finished) return;
      failure = e;
      void close();
    },
  };
  const onChain = (work: Promise<void>): void => {
    queued++;
    chain = work
      .catch((e: unknown) => control.fail(e))
      .finally(() => {
        queued--;
      });
  };
  const enqueue = (task: () => Promise<void> | void): void => {
    onChain(chain.then(async () => void (finished ? undefined : await task())));
  };
  const onEvent = (event: TIn): void => {
    if (queued > 0) return enqueue(() => spec.onEvent(event, control));
    // why: nothing is being handled, so this event may be handled at once, in order; a
    // handler that answers without waiting costs no promise (thousands of subscribers of one
    // event each run this inside the publish).
    if (finished) return;
    try {
      const pending = spec.onEvent(event, control);
      if (pending) onChain(pending);
    } catch (e) {
      control.fail(e);
    }
  };
  const started = spec.subscribe(onEvent).then((u) => {
    if (finished) return u();
    unsubscribe = u;
    // why: events published while the source was cut off are lost; going on silently would
    // leave the client waiting for a SETTLED that may never come. It re-subscribes instead.
    void u.lost?.then((e) => enqueue(() => control.fail(e)));
  });
  // why: the start phase runs on the same chain, ahead of any live event that arrives after
  // the subscription became active, so a snapshot or replay always comes first.
  chain = started
    .then(() => (finished || !spec.start ? undefined : spec.start(control)))
    .catch((e: unknown) => control.fail(e))
    .finally(() => {
      queued--;
    });

  return {
    next: () =>
      new Promise<IteratorResult<TOut>>((resolve, reject) => {
        waiters.push({ resolve, reject });
        flush();
      }),
    return: async () => {
      await close();
      return { value: undefined, done: true };
    },
    throw: async (e: unknown) => {
      await close();
      throw e;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
    [DIRECT_SINK](direct: DirectSink<TOut>) {
      sink = direct;
    },
  };
}

/** Maps each value of an async iterator, passing `return` through (so unsubscribing works). */
export function mapStream<A, B>(
  source: AsyncIterableIterator<A>,
  f: (a: A) => B | Promise<B>,
): AsyncIterableIterator<B> {
  return {
    async next() {
      const r = await source.next();
      return r.done ? { value: undefined, done: true } : { value: await f(r.value), done: false };
    },
    async return() {
      await source.return?.();
      return { value: undefined, done: true };
    },
    async throw(e: unknown) {
      await source.return?.();
      throw e;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
