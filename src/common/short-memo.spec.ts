import { ShortMemo } from './short-memo';

describe('ShortMemo', () => {
  it('shares one load between concurrent callers and reuses it within the ttl', async () => {
    const memo = new ShortMemo<string, number>(1_000);
    let loads = 0;
    const load = () => Promise.resolve(++loads);
    const results = await Promise.all([memo.get('a', load), memo.get('a', load), memo.get('a', load)]);
    expect(results).toEqual([1, 1, 1]);
    expect(await memo.get('a', load)).toBe(1);
    expect(loads).toBe(1);
  });

  it('loads again after forget and after the ttl', async () => {
    const memo = new ShortMemo<string, number>(20);
    let loads = 0;
    const load = () => Promise.resolve(++loads);
    await memo.get('a', load);
    memo.forget('a');
    expect(await memo.get('a', load)).toBe(2);
    await new Promise((r) => setTimeout(r, 30));
    expect(await memo.get('a', load)).toBe(3);
  });

  it('does not keep a failed load', async () => {
    const memo = new ShortMemo<string, number>(1_000);
    await expect(memo.get('a', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await memo.get('a', () => Promise.resolve(7))).toBe(7);
  });

  it('peeks only a loaded, fresh value, and nothing after forget or the ttl', async () => {
    const memo = new ShortMemo<string, number | null>(20);
    let release!: (v: number | null) => void;
    const loading = memo.get('a', () => new Promise((r) => (release = r)));
    expect(memo.peek('a')).toBeUndefined();
    release(null);
    await loading;
    expect(memo.peek('a')).toEqual({ value: null });
    memo.forget('a');
    expect(memo.peek('a')).toBeUndefined();
    await memo.get('a', () => Promise.resolve(5));
    expect(memo.peek('a')).toEqual({ value: 5 });
    await new Promise((r) => setTimeout(r, 30));
    expect(memo.peek('a')).toBeUndefined();
  });
});
