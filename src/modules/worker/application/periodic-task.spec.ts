import { PeriodicTask } from './periodic-task';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A task whose passes are counted and can be held open. */
function probe(result: () => boolean = () => false) {
  const state = { passes: 0, concurrent: 0, maxConcurrent: 0, hold: null as Promise<void> | null };
  const task = async (): Promise<boolean> => {
    state.passes += 1;
    state.concurrent += 1;
    state.maxConcurrent = Math.max(state.maxConcurrent, state.concurrent);
    try {
      if (state.hold) await state.hold;
      return result();
    } finally {
      state.concurrent -= 1;
    }
  };
  return { state, task };
}

describe('PeriodicTask', () => {
  it('runs a pass at start and then every interval until stopped, and none after', async () => {
    const { state, task } = probe();
    const t = new PeriodicTask(30, task, () => undefined);
    t.start();
    expect(state.passes).toBe(1);
    await sleep(100);
    await t.stop();
    const after = state.passes;
    expect(after).toBeGreaterThanOrEqual(3);
    await sleep(90);
    expect(state.passes).toBe(after);
    expect(t.active).toBe(false);
  });

  it('never overlaps passes: wakes during a pass ask for exactly one more pass', async () => {
    const { state, task } = probe();
    let release!: () => void;
    state.hold = new Promise<void>((r) => (release = r));
    const t = new PeriodicTask(60_000, task, () => undefined);
    t.start();
    t.wake();
    t.wake();
    t.wake();
    expect(state.passes).toBe(1);
    state.hold = null;
    release();
    await sleep(10);
    expect(state.passes).toBe(2);
    expect(state.maxConcurrent).toBe(1);
    await t.stop();
  });

  it('follows a pass that reports more work with another at once', async () => {
    let left = 3;
    const { state, task } = probe(() => --left > 0);
    const t = new PeriodicTask(60_000, task, () => undefined);
    t.start();
    await sleep(10);
    expect(state.passes).toBe(3);
    await t.stop();
  });

  it('hands a failing pass to onError and keeps running', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const t = new PeriodicTask(
      20,
      () => {
        calls += 1;
        return Promise.reject(new Error(`boom ${calls}`));
      },
      (e) => errors.push(e),
    );
    t.start();
    await sleep(70);
    await t.stop();
    expect(errors.length).toBe(calls);
    expect(calls).toBeGreaterThanOrEqual(2);
  });

  it('stop waits for the pass in progress; wake after stop does nothing', async () => {
    const { state, task } = probe();
    let release!: () => void;
    state.hold = new Promise<void>((r) => (release = r));
    const t = new PeriodicTask(60_000, task, () => undefined);
    t.start();
    let stopped = false;
    const stopping = t.stop().then(() => (stopped = true));
    await sleep(10);
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(state.concurrent).toBe(0);
    t.wake();
    expect(state.passes).toBe(1);
  });
});
