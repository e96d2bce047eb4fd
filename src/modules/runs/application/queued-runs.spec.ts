import type { AppConfig } from '../../../config/app-config';
import type { PrincipalsService } from '../../auth';
import type { ConfigurationsService } from '../../configurations';
import type { PagesService } from '../../content';
import type { RunClaimsRepository } from '../persistence/run-claims.repository';
import type { ClaimedRun } from '../persistence/runs.repository';
import { QueuedRuns } from './queued-runs';
import type { RunExecutor } from './run-executor';
import type { RunSettler } from './run-settler';
import type { StateVault } from './state-vault';
import type { Segment } from './segment';

/** A read that stays open until the test releases it, noting that it was asked for. */
function pending<T>(
  asked: string[],
  name: string,
  value: T,
): { read: () => Promise<T>; release: () => void } {
  let release = () => {};
  const settled = new Promise<T>((resolve) => (release = () => resolve(value)));
  return {
    read: () => {
      asked.push(name);
      return settled;
    },
    release,
  };
}

function setup() {
  const asked: string[] = [];
  const configuration = pending(asked, 'configuration', { id: 7, identifier: 'c' });
  const owner = pending(asked, 'owner', { id: 3, username: 'alice' });
  const page = pending(asked, 'default page', 11);
  const launched: Segment[] = [];
  const queued = new QueuedRuns(
    {} as RunClaimsRepository,
    { open: () => ({ v: 1, kind: 'start', prompt: 'Go' }) } as unknown as StateVault,
    { launch: (segment: Segment) => launched.push(segment) } as unknown as RunExecutor,
    {} as RunSettler,
    { getById: configuration.read } as unknown as ConfigurationsService,
    { load: owner.read } as unknown as PrincipalsService,
    { defaultPageId: page.read } as unknown as PagesService,
    { runLeaseSeconds: 60 } as AppConfig,
  );
  const release = () => [configuration, owner, page].forEach((r) => r.release());
  return { queued, asked, launched, release };
}

const claimOf = (subjectPageId: number | null): ClaimedRun => ({
  lease: { runId: 'r1', token: 't', claimedBy: 'w' },
  run: { id: 'r1', checkpoint: 'sealed', configurationId: 7, ownerId: 3, subjectPageId } as ClaimedRun['run'],
});

describe('QueuedRuns.begin', () => {
  it('reads the configuration, the owner and the default page side by side, and hands them to the segment', async () => {
    const { queued, asked, launched, release } = setup();
    const begun = queued.begin(claimOf(null));
    await new Promise((r) => setImmediate(r));
    // every read was asked for before any of them answered: one round trip, not three
    expect(asked).toEqual(['configuration', 'owner', 'default page']);
    expect(launched).toHaveLength(0);
    release();
    expect(await begun).toBe('launched');
    expect(launched).toHaveLength(1);
    expect(launched[0]).toMatchObject({
      configuration: { id: 7 },
      owner: { id: 3, username: 'alice' },
      pageId: 11,
    });
  });

  it('does not look a default page up for a run about a page of its own', async () => {
    const { queued, asked, launched, release } = setup();
    release();
    expect(await queued.begin(claimOf(5))).toBe('launched');
    expect(asked).toEqual(['configuration', 'owner']);
    expect(launched[0]!.pageId).toBeUndefined();
  });
});
