import { ClaimsInFlight, TAKEN_MEMORY_MS, type TurnKey } from './claims-in-flight';

/** A decision that ends when told: resolves (with whether it took the turn) or rejects. */
function pending() {
  let end!: (took: boolean) => void;
  let refuse!: (e: Error) => void;
  const promise = new Promise<boolean>((res, rej) => {
    end = res;
    refuse = rej;
  });
  return { promise, end, refuse };
}

const lost = () => new Error('lost');
const tick = () => new Promise((r) => setImmediate(r));
const took = (result: boolean) => result;
const key = (turn = 3, digest = 'digest-a', runId = 'run-1', seen = 'w1:7'): TurnKey => ({
  runId,
  turn,
  digest,
  seen,
});

describe('ClaimsInFlight', () => {
  it('refuses a decision on the turn and digest another decision of this process took, without running it', async () => {
    const claims = new ClaimsInFlight();
    const first = pending();
    const winner = claims.run(key(), () => first.promise, took, lost);
    let ran = 0;
    const loser = claims.run(key(), () => Promise.resolve(++ran > 0), took, lost);
    first.end(true);
    await expect(winner).resolves.toBe(true);
    await expect(loser).rejects.toThrow('lost');
    expect(ran).toBe(0);
    expect(claims.size).toBe(0);
  });

  it('lets the next decision run once the one in flight was refused or did not take the turn, one at a time', async () => {
    const claims = new ClaimsInFlight();
    const first = pending();
    const vote = pending();
    const third = pending();
    const started: string[] = [];
    const a = claims.run(key(), () => (started.push('a'), first.promise), took, lost);
    const b = claims.run(key(), () => (started.push('b'), vote.promise), took, lost);
    const c = claims.run(key(), () => (started.push('c'), third.promise), took, lost);
    const d = claims.run(key(), () => (started.push('d'), Promise.resolve(true)), took, lost);
    expect(started).toEqual(['a']);
    first.refuse(new Error('self-approval'));
    await expect(a).rejects.toThrow('self-approval');
    await tick();
    expect(started).toEqual(['a', 'b']);
    // a quorum's vote that leaves the run waiting: the next voter goes on
    vote.end(false);
    await expect(b).resolves.toBe(false);
    await tick();
    expect(started).toEqual(['a', 'b', 'c']);
    third.end(true);
    await expect(c).resolves.toBe(true);
    await expect(d).rejects.toThrow('lost');
    expect(started).toEqual(['a', 'b', 'c']);
  });

  it('runs a decision under another digest or turn after the one in flight, and decisions on other runs at once', async () => {
    const claims = new ClaimsInFlight();
    const first = pending();
    const started: string[] = [];
    const a = claims.run(key(), () => (started.push('a'), first.promise), took, lost);
    const stale = claims.run(
      key(3, 'digest-b'),
      () => (started.push('stale'), Promise.resolve(false)),
      took,
      lost,
    );
    const later = claims.run(key(4), () => (started.push('later'), Promise.resolve(true)), took, lost);
    const other = claims.run(
      key(3, 'digest-a', 'run-2'),
      () => (started.push('other'), Promise.resolve(true)),
      took,
      lost,
    );
    await expect(other).resolves.toBe(true);
    expect(started).toEqual(['a', 'other']);
    first.end(true);
    await expect(a).resolves.toBe(true);
    // why: they run (and meet their own refusals: STALE_TURN, the claim's) rather than being
    // told another decision took a turn they did not decide.
    await expect(stale).resolves.toBe(false);
    await expect(later).resolves.toBe(true);
    expect(started).toEqual(['a', 'other', 'stale', 'later']);
  });

  it('runs at once, unqueued, for a caller inside a transaction, even with a decision in flight', async () => {
    const claims = new ClaimsInFlight();
    const first = pending();
    const a = claims.run(key(), () => first.promise, took, lost);
    // why: a caller's transaction may hold the run's row lock that the decision in flight
    // waits for; queued behind it, each would wait for the other.
    await expect(claims.run(key(), () => Promise.resolve(true), took, lost, false)).resolves.toBe(true);
    first.refuse(new Error('lost at the claim'));
    await expect(a).rejects.toThrow('lost at the claim');
  });

  it('refuses a late racer whose read saw the turn waiting before a decision here took it, for a while', async () => {
    let clock = 1_000;
    const claims = new ClaimsInFlight(() => clock);
    await expect(claims.run(key(), () => Promise.resolve(true), took, lost)).resolves.toBe(true);
    await tick();
    expect(claims.size).toBe(0);
    let ran = 0;
    const racer = () => Promise.resolve(++ran > 0);
    // its read of the run went out before the winner's commit: the same waiting, refused as lost
    await expect(claims.run(key(), racer, took, lost)).rejects.toThrow('lost');
    // a hand-back opened the same turn again (a new waiting): it runs and meets the claim
    await expect(claims.run(key(3, 'digest-a', 'run-1', 'w2:8'), racer, took, lost)).resolves.toBe(true);
    expect(ran).toBe(1);
    // the newer taking is remembered in place of the older; after the memory's time, nothing
    await tick();
    await expect(claims.run(key(3, 'digest-a', 'run-1', 'w2:8'), racer, took, lost)).rejects.toThrow('lost');
    clock += TAKEN_MEMORY_MS;
    await expect(claims.run(key(3, 'digest-a', 'run-1', 'w2:8'), racer, took, lost)).resolves.toBe(true);
    expect(ran).toBe(2);
  });

  it('remembers only turns taken: a refused decision or a vote that leaves the run waiting is not', async () => {
    const claims = new ClaimsInFlight();
    await expect(
      claims.run(key(), () => Promise.reject(new Error('self-approval')), took, lost),
    ).rejects.toThrow('self-approval');
    await expect(claims.run(key(), () => Promise.resolve(false), took, lost)).resolves.toBe(false);
    await tick();
    await expect(claims.run(key(), () => Promise.resolve(true), took, lost)).resolves.toBe(true);
    await tick();
    await expect(claims.run(key(3, 'digest-b'), () => Promise.resolve(false), took, lost)).resolves.toBe(
      false,
    );
    await expect(claims.run(key(), () => Promise.resolve(true), took, lost)).rejects.toThrow('lost');
  });
});
