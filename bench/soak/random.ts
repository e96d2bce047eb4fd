/**
 * A seeded pseudo-random source (mulberry32): the soak's every choice comes from one, so a
 * seed replays the same choices. Each lane forks its own stream (`fork(label)`), so what one
 * lane draws does not depend on how fast another lane went; the interleaving in time still
 * varies from run to run (processes, the database and the machine decide it).
 */
export class Random {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max] (both included). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Random.pick: nothing to pick from');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** One of the entries, with probability proportional to its weight (weights <= 0 never). */
  weighted<T>(entries: ReadonlyArray<readonly [T, number]>): T {
    const total = entries.reduce((sum, [, w]) => sum + Math.max(0, w), 0);
    if (total <= 0) throw new Error('Random.weighted: no positive weight');
    let r = this.next() * total;
    for (const [value, w] of entries) {
      if (w <= 0) continue;
      r -= w;
      if (r < 0) return value;
    }
    return entries.filter(([, w]) => w > 0).at(-1)![0];
  }

  /** An exponentially distributed delay with this mean (a Poisson process's gaps). */
  exponential(mean: number): number {
    return -Math.log(1 - this.next()) * mean;
  }

  /** `n` hex characters. */
  hex(n: number): string {
    let out = '';
    while (out.length < n) out += this.int(0, 15).toString(16);
    return out;
  }

  /** An independent stream for `label` (a lane, the kill loop), the same for the same seed. */
  fork(label: number): Random {
    return new Random(mix(this.seed, label));
  }
}

/** splitmix32-style mixing of a seed and a label into a new 32-bit seed. */
function mix(seed: number, label: number): number {
  let z = (seed ^ Math.imul(label + 1, 0x9e3779b9)) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}

/** A fresh seed for a run that was not given one (printed, so it can be replayed). */
export function freshSeed(): number {
  return Math.floor(Math.random() * 2 ** 32) >>> 0;
}
