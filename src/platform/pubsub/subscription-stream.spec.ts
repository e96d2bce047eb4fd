import { DIRECT_SINK, subscriptionStream, type StreamControl } from './subscription-stream';

/** A live source the test pushes into, recording (un)subscriptions. */
function source<T>() {
  let push: ((e: T) => void) | null = null;
  const calls = { subscribed: 0, unsubscribed: 0 };
  return {
    calls,
    push: (e: T) => push?.(e),
    subscribe: (p: (e: T) => void) => {
      calls.subscribed += 1;
      push = p;
      return Promise.resolve(() => {
        calls.unsubscribed += 1;
        push = null;
        return Promise.resolve();
      });
    },
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('subscriptionStream', () => {
  it('delivers the start phase before live events that arrived meanwhile, in order', async () => {
    const live = source<number>();
    let releaseStart!: () => void;
    const startGate = new Promise<void>((r) => (releaseStart = r));
    const stream = subscriptionStream<number, string>({
      subscribe: live.subscribe,
      start: async (c) => {
        c.emit('snapshot-1');
        await startGate;
        c.emit('snapshot-2');
      },
      onEvent: (e, c) => c.emit(`live-${e}`),
    });
    await tick();
    live.push(1);
    live.push(2);
    releaseStart();
    const got = [];
    for (let i = 0; i < 4; i++) got.push((await stream.next()).value);
    expect(got).toEqual(['snapshot-1', 'snapshot-2', 'live-1', 'live-2']);
    live.push(3);
    expect(await stream.next()).toEqual({ value: 'live-3', done: false });
    await stream.return!();
  });

  it('return() ends a waiting next() at once and unsubscribes', async () => {
    const live = source<number>();
    const stream = subscriptionStream<number, number>({
      subscribe: live.subscribe,
      onEvent: (e, c) => c.emit(e),
    });
    await tick();
    const waiting = stream.next();
    const result = await stream.return!();
    expect(result).toEqual({ value: undefined, done: true });
    await expect(waiting).resolves.toEqual({ value: undefined, done: true });
    expect(live.calls).toEqual({ subscribed: 1, unsubscribed: 1 });
    live.push(9);
    expect(await stream.next()).toEqual({ value: undefined, done: true });
  });

  it('unsubscribes when return() comes before the subscription became active', async () => {
    const live = source<number>();
    const stream = subscriptionStream<number, number>({
      subscribe: live.subscribe,
      onEvent: (e, c) => c.emit(e),
    });
    await stream.return!();
    await tick();
    expect(live.calls).toEqual({ subscribed: 1, unsubscribed: 1 });
  });

  it('fail() rejects only after the values emitted before it drained', async () => {
    const live = source<number>();
    const boom = new Error('FORBIDDEN');
    const stream = subscriptionStream<number, number>({
      subscribe: live.subscribe,
      onEvent: (e, c: StreamControl<number>) => {
        if (e < 0) c.fail(boom);
        else c.emit(e);
      },
    });
    await tick();
    live.push(1);
    live.push(2);
    live.push(-1);
    live.push(3);
    await tick();
    expect(await stream.next()).toEqual({ value: 1, done: false });
    expect(await stream.next()).toEqual({ value: 2, done: false });
    await expect(stream.next()).rejects.toBe(boom);
    expect(await stream.next()).toEqual({ value: undefined, done: true });
    expect(live.calls.unsubscribed).toBe(1);
  });

  it('a throwing start phase fails the stream; end() completes it after the emitted values', async () => {
    const failing = subscriptionStream<number, number>({
      subscribe: source<number>().subscribe,
      start: () => Promise.reject(new Error('gone')),
      onEvent: () => undefined,
    });
    await expect(failing.next()).rejects.toThrow('gone');
    const ending = subscriptionStream<number, number>({
      subscribe: source<number>().subscribe,
      start: (c) => {
        c.emit(1);
        c.end();
        c.emit(2);
        return Promise.resolve();
      },
      onEvent: () => undefined,
    });
    expect(await ending.next()).toEqual({ value: 1, done: false });
    expect(await ending.next()).toEqual({ value: undefined, done: true });
  });

  it('fails the stream when its source reports it was cut off, after the values already emitted', async () => {
    let cut!: (e: unknown) => void;
    const lost = new Promise<unknown>((r) => (cut = r));
    let push!: (e: number) => void;
    let unsubscribed = 0;
    const stream = subscriptionStream<number, number>({
      subscribe: (p) => {
        push = p;
        const end = () => Promise.resolve(void (unsubscribed += 1));
        return Promise.resolve(Object.assign(end, { lost }));
      },
      onEvent: (e, c) => c.emit(e),
    });
    await tick();
    push(1);
    const gone = new Error('the event bus is down');
    cut(gone);
    await tick();
    expect(await stream.next()).toEqual({ value: 1, done: false });
    await expect(stream.next()).rejects.toBe(gone);
    expect(await stream.next()).toEqual({ value: undefined, done: true });
    expect(unsubscribed).toBe(1);
  });

  it('handles a live event inside the publish when nothing is pending, and keeps order when a handler waits', async () => {
    const live = source<number>();
    const seen: string[] = [];
    let release!: () => void;
    const stream = subscriptionStream<number, number>({
      subscribe: live.subscribe,
      onEvent: (e, c) => {
        seen.push(`handle-${e}`);
        if (e !== 2) return c.emit(e);
        // why: event 2's handler waits (an authorisation read): 3 must queue behind it.
        return new Promise<void>((r) => (release = r)).then(() => c.emit(e));
      },
    });
    await tick();
    live.push(1);
    expect(seen).toEqual(['handle-1']);
    live.push(2);
    live.push(3);
    expect(seen).toEqual(['handle-1', 'handle-2']);
    release();
    await tick();
    expect(seen).toEqual(['handle-1', 'handle-2', 'handle-3']);
    expect([(await stream.next()).value, (await stream.next()).value, (await stream.next()).value]).toEqual([
      1, 2, 3,
    ]);
  });

  it('offers the direct sink a value only while the consumer waits with nothing queued; end and failure come through next()', async () => {
    const live = source<number>();
    const stream = subscriptionStream<number, number>({
      subscribe: live.subscribe,
      start: (c) => Promise.resolve(c.emit(0)),
      onEvent: (e, c) => (e < 0 ? c.fail(new Error('lost')) : c.emit(e)),
    });
    const sunk: number[] = [];
    stream[DIRECT_SINK]((v) => {
      if (v === 3) return false;
      sunk.push(v);
      return true;
    });
    await tick();
    live.push(1);
    // why: nobody waits in next() yet: the snapshot (0) and 1 are queued, not sunk.
    expect(sunk).toEqual([]);
    expect((await stream.next()).value).toBe(0);
    expect((await stream.next()).value).toBe(1);
    const waiting = stream.next();
    live.push(2);
    expect(sunk).toEqual([2]);
    live.push(3);
    expect(await waiting).toEqual({ value: 3, done: false });
    live.push(-1);
    await expect(stream.next()).rejects.toThrow('lost');
    expect(sunk).toEqual([2]);
  });
});
