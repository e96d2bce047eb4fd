import { LeaseLostError, type Step } from '../../../agent';
import type { TransactionRunner } from '../../../platform/database/transaction-runner';
import type { CarriedCompletion, EffectWriteRider, RunsRepository } from '../persistence/runs.repository';
import { CarriedWriteLost } from './content-port.adapter';
import { EffectWrites } from './effect-writes';
import type { KeptSteps } from './kept-steps';

const lease = { runId: 'r1', token: 't1', claimedBy: 'test' };
const steps: Step[] = [{ kind: 'TOOL', round: 1, durationMs: 0, payload: {} }];
const write = (name: string): EffectWriteRider => ({ sql: () => name, params: [] });

/** EffectWrites over fakes that record what went to the database, and in which unit. */
function rig(carried: CarriedCompletion[] = [[5]]) {
  const sent: string[] = [];
  let inTransaction = false;
  const repository = {
    completeEffectWith: (_l: unknown, _s: unknown, _secs: unknown, _cp: unknown, w: EffectWriteRider) => {
      sent.push(`completion with ${w.sql(1, 'leased')}${inTransaction ? ' (transaction)' : ''}`);
      return Promise.resolve(carried.shift() ?? [5]);
    },
    completeEffect: () => {
      sent.push(`completion${inTransaction ? ' (transaction)' : ''}`);
      return Promise.resolve([5]);
    },
  } as unknown as RunsRepository;
  const transactions = {
    run: async <T>(work: () => Promise<T>): Promise<T> => {
      inTransaction = true;
      try {
        return await work();
      } finally {
        inTransaction = false;
      }
    },
  } as unknown as TransactionRunner;
  const kept = { flush: () => Promise.resolve(), storedBy: () => undefined } as unknown as KeptSteps;
  const writes = new EffectWrites(repository, transactions, lease, 30, kept);
  return { writes, fence: writes.fence(), sent };
}

describe('EffectWrites', () => {
  it('sends the carried write in the completion: one statement, no transaction', async () => {
    const { writes, fence, sent } = rig();
    const sequences = await writes.atomically(async () => {
      expect(fence.carries()).toBe(true);
      expect(fence.carry(write('the write'))).toBe(true);
      return writes.complete(steps);
    });
    expect(sequences).toEqual([5]);
    expect(sent).toEqual(['completion with the write']);
  });

  it('runs the call again in a transaction, carrying nothing, when the guard failed', async () => {
    const { writes, fence, sent } = rig(['write-lost']);
    let calls = 0;
    await writes.atomically(async () => {
      calls++;
      if (fence.carries()) fence.carry(write('the write'));
      return writes.complete(steps);
    });
    expect(calls).toBe(2);
    expect(sent).toEqual(['completion with the write', 'completion (transaction)']);
  });

  it('a second write in one call goes to the transaction before anything is sent', async () => {
    const { writes, fence, sent } = rig();
    let calls = 0;
    await writes.atomically(async () => {
      calls++;
      if (fence.carries()) {
        expect(fence.carry(write('first'))).toBe(true);
        if (!fence.carry(write('second'))) throw new CarriedWriteLost();
      }
      return writes.complete(steps);
    });
    expect(calls).toBe(2);
    expect(sent).toEqual(['completion (transaction)']);
  });

  it('a lost lease stops the call: no second attempt', async () => {
    const { writes, fence, sent } = rig(['lease-lost']);
    let calls = 0;
    await expect(
      writes.atomically(async () => {
        calls++;
        fence.carry(write('the write'));
        return writes.complete(steps);
      }),
    ).rejects.toBeInstanceOf(LeaseLostError);
    expect(calls).toBe(1);
    expect(sent).toEqual(['completion with the write']);
  });

  it('outside atomically the fence carries nothing: the write goes in its own transaction', () => {
    const { fence } = rig();
    expect(fence.carries()).toBe(false);
  });
});
