import { Logger } from '@nestjs/common';
import { StateUnreadableError } from '../../../agent';
import type { AppConfig } from '../../../config/app-config';
import type { ConfigurationSettings, ConfigurationsService } from '../../configurations';
import type { PrincipalsService } from '../../auth';
import type { PagesService } from '../../content';
import type { RecordedDecisions } from '../../approvals';
import {
  QueuedRuns,
  UNREADABLE_CHECKPOINT_MESSAGE,
  type ClaimedRun,
  type QueuedClaim,
  type RunExecutor,
  type RunSettler,
  type StateVault,
} from '../../runs';
import { QueuedRunPicker } from './queued-run-picker';

function claimOf(id: string, checkpoint: string): QueuedClaim {
  return {
    lease: { runId: id, token: `token-${id}`, claimedBy: 'w' },
    run: { id, checkpoint, configurationId: 7, stepCount: 2, turn: 0 } as ClaimedRun['run'],
    joined: { configuration: { id: 7 } as ConfigurationSettings, owner: null, page: null },
  };
}

/** A joined read the fakes never send: the claims here come with what they read. */
const unsentRead = { joinedById: () => ({}), joinedRunPageAccess: () => ({}) };

/**
 * A picker over fakes: a queue of claims, an executor whose segments end when told, and
 * `recorded` decisions that the pickup "launches" on the executor as RecordedDecisions does.
 */
function setup(queue: QueuedClaim[], recorded: string[] = [], workerPrefetch = 0) {
  const ends = new Map<string, () => void>();
  const launched: string[] = [];
  const settles: Array<{ runId: string; settlement: unknown }> = [];
  const claims: number[] = [];
  const repository = {
    claimQueued: (_by: string, _lease: number, limit: number) => {
      claims.push(limit);
      return Promise.resolve(queue.splice(0, limit));
    },
  };
  const settler = {
    settle: (guard: { lease: { runId: string } }, settlement: unknown) => {
      settles.push({ runId: guard.lease.runId, settlement });
      return Promise.resolve({ stepCount: 2, turn: 0, hadDecision: false });
    },
  };
  const inFlight = new Map<string, Promise<void>>();
  const executor = {
    launch: (segment: { run: { id: string } }) => {
      launched.push(segment.run.id);
      const id = segment.run.id;
      inFlight.set(
        id,
        new Promise<void>((r) => ends.set(id, r)).then(() => void inFlight.delete(id)),
      );
    },
    settled: (id: string) => inFlight.get(id) ?? Promise.resolve(),
    activeCount: () => inFlight.size,
  };
  const pickups: Array<{ by: string; limit: number }> = [];
  const decisions = {
    pickUp: (by: string, limit: number) => {
      pickups.push({ by, limit });
      const taken = recorded.splice(0, limit);
      for (const id of taken) executor.launch({ run: { id } });
      return Promise.resolve(taken.map((id) => claimOf(id, 'sealed')));
    },
  };
  const vault = {
    open: (_id: string, sealed: string) => {
      if (sealed === 'garbage') throw new StateUnreadableError('bad');
      return { v: 1, kind: 'start', prompt: 'Go' };
    },
  };
  const configurations = unsentRead;
  const config = {
    workerConcurrency: 2,
    workerPrefetch,
    runLeaseSeconds: 60,
    workerEnabled: false,
  } as AppConfig;
  const queued = new QueuedRuns(
    // why the parameter's type: the runs module's repository stays inside it, even for a test.
    repository as unknown as ConstructorParameters<typeof QueuedRuns>[0],
    vault as unknown as StateVault,
    executor as unknown as RunExecutor,
    settler as unknown as RunSettler,
    configurations as unknown as ConfigurationsService,
    unsentRead as unknown as PrincipalsService,
    unsentRead as unknown as PagesService,
    config,
  );
  const picker = new QueuedRunPicker(
    queued,
    executor as unknown as RunExecutor,
    config,
    decisions as unknown as RecordedDecisions,
  );
  return {
    picker,
    ends,
    launched,
    settles,
    claims,
    pickups,
  };
}

describe('QueuedRunPicker', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('claims no more runs than free slots and takes more once a segment ends', async () => {
    const f = setup(['a', 'b', 'c', 'd'].map((id) => claimOf(id, 'sealed')));
    expect(await f.picker.pickOnce()).toBe(true);
    expect(f.launched).toEqual(['a', 'b']);
    expect(f.picker.running).toBe(2);
    expect(await f.picker.pickOnce()).toBe(false);
    expect(f.claims).toEqual([2]);
    f.ends.get('a')!();
    await new Promise((r) => setImmediate(r));
    expect(f.picker.running).toBe(1);
    await f.picker.pickOnce();
    expect(f.claims).toEqual([2, 1]);
    expect(f.launched).toEqual(['a', 'b', 'c']);
  });

  it('claims WORKER_PREFETCH runs ahead of the free slots, and tops them up as segments end', async () => {
    const f = setup([], ['d1', 'd2', 'd3', 'd4', 'd5', 'd6'], 2);
    expect(await f.picker.pickOnce()).toBe(true);
    expect(f.pickups).toEqual([{ by: f.picker.workerId, limit: 4 }]);
    expect(f.launched).toEqual(['d1', 'd2', 'd3', 'd4']);
    expect(await f.picker.pickOnce()).toBe(false);
    f.ends.get('d1')!();
    await new Promise((r) => setImmediate(r));
    await f.picker.pickOnce();
    expect(f.pickups.at(-1)).toEqual({ by: f.picker.workerId, limit: 1 });
    expect(f.launched).toEqual(['d1', 'd2', 'd3', 'd4', 'd5']);
  });

  it('takes recorded decisions first, then queued runs for the slots left, never more than the concurrency', async () => {
    const f = setup(
      ['q1', 'q2'].map((id) => claimOf(id, 'sealed')),
      ['d1'],
    );
    expect(await f.picker.pickOnce()).toBe(true);
    expect(f.pickups).toEqual([{ by: f.picker.workerId, limit: 2 }]);
    expect(f.claims).toEqual([1]);
    expect(f.launched).toEqual(['d1', 'q1']);
    expect(await f.picker.pickOnce()).toBe(false);
    expect(f.pickups).toHaveLength(1);
    f.ends.get('d1')!();
    await new Promise((r) => setImmediate(r));
    await f.picker.pickOnce();
    expect(f.pickups.at(-1)).toEqual({ by: f.picker.workerId, limit: 1 });
    expect(f.launched).toEqual(['d1', 'q1', 'q2']);
  });

  it('fills every slot with recorded decisions without claiming queued runs', async () => {
    const f = setup([claimOf('q1', 'sealed')], ['d1', 'd2', 'd3']);
    expect(await f.picker.pickOnce()).toBe(true);
    expect(f.launched).toEqual(['d1', 'd2']);
    expect(f.claims).toEqual([]);
  });

  it("wakes when a recorded decision's continuation ends, not only at the next poll", async () => {
    const f = setup([], ['d1', 'd2', 'd3']);
    f.picker.start();
    try {
      await new Promise((r) => setImmediate(r));
      expect(f.launched).toEqual(['d1', 'd2']);
      f.ends.get('d1')!();
      // why: well before the poll (PICKUP_POLL_MS): only the wake of the ended segment can take d3.
      for (let i = 0; i < 5 && f.launched.length < 3; i++) await new Promise((r) => setImmediate(r));
      expect(f.launched).toEqual(['d1', 'd2', 'd3']);
      expect(f.picker.running).toBe(2);
    } finally {
      await f.picker.stop();
    }
  });

  it('still claims queued runs when the decision pickup fails', async () => {
    const f = setup([claimOf('q1', 'sealed')]);
    (f.picker as unknown as { decisions: { pickUp: () => Promise<ClaimedRun[]> } }).decisions.pickUp = () =>
      Promise.reject(new Error('down'));
    await f.picker.pickOnce();
    expect(f.launched).toEqual(['q1']);
  });

  it('fails a run whose checkpoint cannot be read, through the settler under its lease', async () => {
    const f = setup([claimOf('x', 'garbage')]);
    await f.picker.pickOnce();
    expect(f.launched).toEqual([]);
    expect(f.settles).toEqual([
      {
        runId: 'x',
        settlement: { kind: 'FAILED', reason: 'NOT_RETRYABLE', message: UNREADABLE_CHECKPOINT_MESSAGE },
      },
    ]);
    expect(f.picker.running).toBe(0);
  });
});
