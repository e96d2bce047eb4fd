import { BatchLoader, type BatchOptions } from './batch-loader';

/** A loader answering each key with itself, and the batches it was asked for. */
function identity(options: BatchOptions) {
  const calls: number[][] = [];
  const loader = new BatchLoader<number, number>(
    String,
    (keys) => {
      calls.push(keys);
      return Promise.resolve(new Map(keys.map((k) => [String(k), k])));
    },
    0,
    options,
  );
  return { loader, calls };
}

describe('BatchLoader', () => {
  it('answers the loads of one tick with one call and caches each key', async () => {
    const calls: number[][] = [];
    const loader = new BatchLoader<number, string>(
      String,
      (keys) => {
        calls.push(keys);
        return Promise.resolve(new Map(keys.filter((k) => k !== 3).map((k) => [String(k), `v${k}`])));
      },
      'missing',
    );
    const first = await Promise.all([loader.load(1), loader.load(2), loader.load(1), loader.load(3)]);
    expect(first).toEqual(['v1', 'v2', 'v1', 'missing']);
    expect(calls).toEqual([[1, 2, 3]]);
    expect(await loader.load(2)).toBe('v2');
    expect(calls).toHaveLength(1);
    expect(await loader.load(4)).toBe('v4');
    expect(calls).toEqual([[1, 2, 3], [4]]);
  });

  it('rejects every load of a failed batch and retries those keys later', async () => {
    let fail = true;
    const loader = new BatchLoader<number, number>(
      String,
      (keys) =>
        fail
          ? Promise.reject(new Error('down'))
          : Promise.resolve(new Map(keys.map((k) => [String(k), k * 2]))),
      0,
    );
    await expect(Promise.all([loader.load(1), loader.load(2)])).rejects.toThrow('down');
    fail = false;
    expect(await loader.load(1)).toBe(2);
  });

  it('without keep shares the loads of one tick only and then forgets them', async () => {
    const { loader, calls } = identity({ keep: false });
    expect(await Promise.all([loader.load(1), loader.load(2), loader.load(1)])).toEqual([1, 2, 1]);
    expect(await loader.load(1)).toBe(1);
    expect(calls).toEqual([[1, 2], [1]]);
  });

  it('without keep never joins a load to a batch already sent', async () => {
    const calls: number[][] = [];
    let release: () => void = () => undefined;
    const loader = new BatchLoader<number, number>(
      String,
      async (keys) => {
        const batch = calls.push(keys);
        if (batch === 1) await new Promise<void>((r) => (release = r));
        return new Map(keys.map((k) => [String(k), k * batch]));
      },
      0,
      { keep: false },
    );
    const first = loader.load(1);
    await new Promise((r) => setImmediate(r));
    // why: the first batch is in flight now; a load asked for after it was sent gets its own.
    const second = loader.load(1);
    await new Promise((r) => setImmediate(r));
    release();
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(calls).toEqual([[1], [1]]);
  });

  it("with firstAtOnce sends a tick's first load at once and the rest of the tick together", async () => {
    const { loader, calls } = identity({ keep: false, firstAtOnce: true });
    const first = loader.load(1);
    // why: sent before the tick ends, alone.
    expect(calls).toEqual([[1]]);
    const rest = [loader.load(2), loader.load(1), loader.load(3), loader.load(2)];
    expect(calls).toEqual([[1]]);
    // why: the later load of 1 does not join the statement sent before it was asked for.
    expect(await Promise.all([first, ...rest])).toEqual([1, 2, 1, 3, 2]);
    expect(calls).toEqual([[1], [2, 1, 3]]);
    // why: the next tick's first load goes at once again.
    const next = loader.load(4);
    expect(calls).toEqual([[1], [2, 1, 3], [4]]);
    expect(await next).toBe(4);
  });
});
