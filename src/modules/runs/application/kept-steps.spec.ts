import { LeaseLostError, type Step } from '../../../agent';
import type { TransactionRunner } from '../../../platform/database/transaction-runner';
import type { RunsRepository } from '../persistence/runs.repository';
import { batchSteps, KeptSteps } from './kept-steps';

const lease = { runId: 'r1', token: 't1', claimedBy: 'test' };
const step = (kind: string): Step => ({ kind, round: 1, durationMs: 0, payload: {} }) as Step;

/** KeptSteps over a repository that stores in memory; `lost` makes the next write find no lease. */
function rig(storedBefore = 4) {
  const writes: string[][] = [];
  const afterCommit: Array<() => unknown> = [];
  let count = storedBefore;
  let lost = false;
  const repository = {
    appendRunSteps: (_lease: unknown, steps: Step[]) => {
      if (lost) return Promise.resolve(null);
      writes.push(steps.map((s) => s.kind));
      const sequences = steps.map((_, i) => count + i + 1);
      count += steps.length;
      return Promise.resolve(sequences);
    },
  } as unknown as RunsRepository;
  const transactions = {
    afterCommit: (effect: () => unknown) => afterCommit.push(effect),
  } as unknown as TransactionRunner;
  const kept = new KeptSteps(repository, transactions, lease, 30, storedBefore);
  return {
    kept,
    writes,
    afterCommit,
    loseLease: () => (lost = true),
  };
}

describe('KeptSteps', () => {
  it('keeps steps without writing, then stores them in one write in order', async () => {
    const { kept, writes } = rig();
    expect([kept.keep(step('REQUEST')), kept.keep(step('LLM')), kept.keep(step('TOOL'))]).toEqual([5, 6, 7]);
    expect(writes).toEqual([]);
    expect(kept.stored).toBe(4);
    await kept.flush();
    expect(writes).toEqual([['REQUEST', 'LLM', 'TOOL']]);
    expect(kept.stored).toBe(7);
    await kept.flush();
    expect(writes).toHaveLength(1);
  });

  it('announces a kept step only after its write, with the sequence it was stored under', async () => {
    const { kept, afterCommit } = rig();
    const announced: number[] = [];
    const sequence = kept.keep(step('LLM'));
    expect(kept.announceWhenStored(sequence, (n) => Promise.resolve(void announced.push(n)))).toBe(true);
    expect(afterCommit).toHaveLength(0);
    await kept.flush();
    await Promise.all(afterCommit.map((effect) => effect()));
    expect(announced).toEqual([5]);
  });

  it('hands its kept steps to a write that stores them itself, then counts and announces them', async () => {
    const { kept, writes, afterCommit } = rig();
    const announced: number[] = [];
    for (const kind of ['REQUEST', 'LLM']) {
      kept.announceWhenStored(kept.keep(step(kind)), (n) => Promise.resolve(void announced.push(n)));
    }
    const batch = kept.take();
    expect(batchSteps(batch).map((s) => s.kind)).toEqual(['REQUEST', 'LLM']);
    // why: taken steps are the settle's to store: a flush meanwhile has nothing to write.
    await kept.flush();
    expect(writes).toEqual([]);
    expect(afterCommit).toHaveLength(0);
    kept.markStored(batch, 6);
    expect(kept.stored).toBe(6);
    await Promise.all(afterCommit.map((effect) => effect()));
    expect(announced).toEqual([5, 6]);
  });

  it('leaves a step it does not keep to its caller, and counts steps another write stored', () => {
    const { kept } = rig();
    expect(kept.announceWhenStored(5, () => Promise.resolve())).toBe(false);
    kept.storedBy([5, 6]);
    expect(kept.stored).toBe(6);
    expect(kept.keep(step('REQUEST'))).toBe(7);
  });

  it('stores and announces nothing when the lease was lost', async () => {
    const { kept, afterCommit, loseLease } = rig();
    kept.announceWhenStored(kept.keep(step('LLM')), () => Promise.resolve());
    loseLease();
    await expect(kept.flush()).rejects.toBeInstanceOf(LeaseLostError);
    expect(afterCommit).toEqual([]);
    expect(kept.stored).toBe(4);
  });
});
