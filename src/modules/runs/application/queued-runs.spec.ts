import type { AppConfig } from '../../../config/app-config';
import type { AuthUser } from '../../../platform/auth/auth-user';
import type { JoinedRead } from '../../../platform/database/joined-read';
import type { PrincipalsService } from '../../auth';
import type { ConfigurationSettings, ConfigurationsService } from '../../configurations';
import type { PageAccess, PagesService } from '../../content';
import type { RunClaimsRepository, StartJoins } from '../persistence/run-claims.repository';
import type { ClaimedRun } from '../persistence/runs.repository';
import { QueuedRuns, type QueuedClaim } from './queued-runs';
import type { RunExecutor } from './run-executor';
import type { RunSettler } from './run-settler';
import type { StateVault } from './state-vault';
import type { Segment } from './segment';

const joinedRead = (name: string): JoinedRead<never> => ({
  sql: (alias, on) => ({ join: `JOIN ${name} ${alias} ON ${on}`, columns: `${alias}.*` }),
  read: () => null,
});

function setup() {
  const asked: string[] = [];
  const ask = (name: string) => () => {
    asked.push(name);
    return Promise.resolve(null);
  };
  const launched: Segment[] = [];
  const joinsSeen: Array<StartJoins<unknown, unknown, unknown>> = [];
  const claims = {
    claimQueued: (
      _by: string,
      _lease: number,
      _limit: number,
      joins: StartJoins<unknown, unknown, unknown>,
    ) => {
      joinsSeen.push(joins);
      return Promise.resolve([]);
    },
  };
  const queued = new QueuedRuns(
    claims as unknown as RunClaimsRepository,
    { open: () => ({ v: 1, kind: 'start', prompt: 'Go' }) } as unknown as StateVault,
    { launch: (segment: Segment) => launched.push(segment) } as unknown as RunExecutor,
    {} as RunSettler,
    {
      getById: ask('configuration'),
      joinedById: () => joinedRead('configuration'),
    } as unknown as ConfigurationsService,
    { load: ask('owner'), joinedById: () => joinedRead('app_user') } as unknown as PrincipalsService,
    {
      defaultPageId: ask('default page'),
      joinedRunPageAccess: () => joinedRead('page'),
    } as unknown as PagesService,
    { runLeaseSeconds: 60 } as AppConfig,
  );
  return { queued, asked, launched, joinsSeen };
}

const claimOf = (subjectPageId: number | null): QueuedClaim => ({
  lease: { runId: 'r1', token: 't', claimedBy: 'w' },
  run: { id: 'r1', checkpoint: 'sealed', configurationId: 7, ownerId: 3, subjectPageId } as ClaimedRun['run'],
  joined: {
    configuration: { id: 7, identifier: 'c' } as ConfigurationSettings,
    owner: { id: 3, username: 'alice' } as AuthUser,
    page: { page: { id: subjectPageId ?? 11 }, languageIds: [1] } as unknown as PageAccess,
  },
});

describe('QueuedRuns', () => {
  it('asks the claim to read the configuration, the owner and the page with it', async () => {
    const { queued, joinsSeen } = setup();
    await queued.claim('w', 3);
    expect(joinsSeen).toHaveLength(1);
    const joins = joinsSeen[0]!;
    expect(joins.configuration.sql('jc', 'x').join).toContain('configuration');
    expect(joins.owner.sql('jo', 'x').join).toContain('app_user');
    expect(joins.page.sql('jp', 'x').join).toContain('page');
  });

  it('starts a claimed run from what the claim read, with no read of its own', async () => {
    const { queued, asked, launched } = setup();
    expect(await queued.begin(claimOf(null))).toBe('launched');
    expect(asked).toEqual([]);
    expect(launched).toHaveLength(1);
    expect(launched[0]).toMatchObject({
      configuration: { id: 7 },
      owner: { id: 3, username: 'alice' },
      pageId: 11,
    });
  });

  it('launches nothing when the claim found no configuration (the claim is left to the reaper)', async () => {
    const { queued, asked, launched } = setup();
    const claim = claimOf(null);
    await expect(
      queued.begin({ ...claim, joined: { ...claim.joined, configuration: null } }),
    ).rejects.toThrow('Configuration not found');
    expect(launched).toEqual([]);
    expect(asked).toEqual([]);
  });

  it('hands no default page to a run about a page of its own', async () => {
    const { queued, asked, launched } = setup();
    expect(await queued.begin(claimOf(5))).toBe('launched');
    expect(asked).toEqual([]);
    expect(launched[0]!.pageId).toBeUndefined();
  });
});
