import { SegmentSlots } from './segment-slots';

const tick = () => new Promise((r) => setImmediate(r));

/** Enters a slot and records when it was granted (true) or refused (false). */
function entering(slots: SegmentSlots, mode: 'now' | 'when-free', signal = new AbortController().signal) {
  const state: { result: boolean | undefined } = { result: undefined };
  void slots.enter(mode, signal).then((r) => (state.result = r));
  return state;
}

describe('SegmentSlots', () => {
  it('lets `when-free` segments wait, first come first served, until one of `limit` slots frees', async () => {
    const slots = new SegmentSlots(2);
    const a = entering(slots, 'when-free');
    const b = entering(slots, 'when-free');
    const c = entering(slots, 'when-free');
    const d = entering(slots, 'when-free');
    await tick();
    expect([a, b, c, d].map((s) => s.result)).toEqual([true, true, undefined, undefined]);
    expect([slots.busy, slots.queued]).toEqual([2, 2]);
    slots.leave();
    await tick();
    expect([c.result, d.result]).toEqual([true, undefined]);
    slots.leave();
    slots.leave();
    await tick();
    expect(d.result).toBe(true);
    expect([slots.busy, slots.queued]).toEqual([1, 0]);
  });

  it('gives a `now` segment a slot at once, past the limit, and the waiters the slots under it', async () => {
    const slots = new SegmentSlots(1);
    const held = entering(slots, 'when-free');
    const waiting = entering(slots, 'when-free');
    const urgent = entering(slots, 'now');
    await tick();
    expect([held.result, waiting.result, urgent.result]).toEqual([true, undefined, true]);
    expect(slots.busy).toBe(2);
    slots.leave();
    await tick();
    expect(waiting.result).toBeUndefined();
    slots.leave();
    await tick();
    expect(waiting.result).toBe(true);
  });

  it('ends a wait with false when its signal aborts, and that segment never holds a slot', async () => {
    const slots = new SegmentSlots(1);
    entering(slots, 'when-free');
    const abort = new AbortController();
    const cancelled = entering(slots, 'when-free', abort.signal);
    const next = entering(slots, 'when-free');
    abort.abort('cancel');
    await tick();
    expect(cancelled.result).toBe(false);
    slots.leave();
    await tick();
    expect(next.result).toBe(true);
    expect([slots.busy, slots.queued]).toEqual([1, 0]);
    expect(await slots.enter('when-free', abort.signal)).toBe(false);
  });

  it('refuses every waiting and later `when-free` segment once the queue closes (the shutdown)', async () => {
    const slots = new SegmentSlots(1);
    entering(slots, 'when-free');
    const waiting = entering(slots, 'when-free');
    slots.closeQueue();
    await tick();
    expect(waiting.result).toBe(false);
    expect(await slots.enter('when-free', new AbortController().signal)).toBe(false);
    expect(await slots.enter('now', new AbortController().signal)).toBe(true);
    expect([slots.busy, slots.queued]).toEqual([2, 0]);
  });
});
