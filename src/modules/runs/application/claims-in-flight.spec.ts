import { ClaimsInFlight } from './claims-in-flight';

/** A claim that ends when told: won (resolves) or refused (rejects). */
function pending() {
  let win!: (v: string) => void;
  let refuse!: (e: Error) => void;
  const promise = new Promise<string>((res, rej) => {
    win = res;
    refuse = rej;
  });
  return { promise, win, refuse };
}

const lost = () => new Error('lost');
const tick = () => new Promise((r) => setImmediate(r));

describe('ClaimsInFlight', () => {
  it('refuses a claim on the turn another claim of this process won, without running it', async () => {
    const claims = new ClaimsInFlight();
    const first = pending();
    const winner = claims.claim('run-1', 3, () => first.promise, lost);
    let ran = 0;
    const loser = claims.claim('run-1', 3, () => Promise.resolve(`ran ${++ran}`), lost);
    first.win('won');
    await expect(winner).resolves.toBe('won');
    await expect(loser).rejects.toThrow('lost');
    expect(ran).toBe(0);
    expect(claims.size).toBe(0);
  });

  it('lets the next claim run once the one in flight was refused, one at a time', async () => {
    const claims = new ClaimsInFlight();
    const first = pending();
    const second = pending();
    const started: string[] = [];
    const a = claims.claim('run-1', 3, () => (started.push('a'), first.promise), lost);
    const b = claims.claim('run-1', 3, () => (started.push('b'), second.promise), lost);
    const c = claims.claim('run-1', 3, () => (started.push('c'), Promise.resolve('c')), lost);
    expect(started).toEqual(['a']);
    first.refuse(new Error('not permitted'));
    await expect(a).rejects.toThrow('not permitted');
    await tick();
    expect(started).toEqual(['a', 'b']);
    second.win('b won');
    await expect(b).resolves.toBe('b won');
    await expect(c).rejects.toThrow('lost');
    expect(started).toEqual(['a', 'b']);
  });

  it('runs a claim on another turn after the one in flight, and claims on other runs at once', async () => {
    const claims = new ClaimsInFlight();
    const first = pending();
    const started: string[] = [];
    const a = claims.claim('run-1', 3, () => (started.push('a'), first.promise), lost);
    const later = claims.claim('run-1', 4, () => (started.push('later'), Promise.resolve('later')), lost);
    const other = claims.claim('run-2', 3, () => (started.push('other'), Promise.resolve('other')), lost);
    await expect(other).resolves.toBe('other');
    expect(started).toEqual(['a', 'other']);
    first.win('a');
    await expect(a).resolves.toBe('a');
    await expect(later).resolves.toBe('later');
    expect(started).toEqual(['a', 'other', 'later']);
  });

  it('claims at once, unqueued, for a caller inside a transaction, even with a claim in flight', async () => {
    const claims = new ClaimsInFlight();
    const first = pending();
    const a = claims.claim('run-1', 3, () => first.promise, lost);
    // why: a quorum's completing vote holds the run's row lock that the claim in flight waits
    // for; queued behind it, each would wait for the other.
    await expect(claims.claim('run-1', 3, () => Promise.resolve('vote'), lost, false)).resolves.toBe('vote');
    first.refuse(new Error('lost at the claim'));
    await expect(a).rejects.toThrow('lost at the claim');
  });
});
