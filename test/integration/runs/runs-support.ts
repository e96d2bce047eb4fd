import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { DataSource } from 'typeorm';
import type { SuspendedState } from '../../../src/agent';
import type { AppConfig } from '../../../src/config/app-config';
import { StateVault } from '../../../src/modules/runs/application/state-vault';
import { RunEventsPublisher } from '../../../src/modules/runs/application/run-events';
import { RunSettlements } from '../../../src/modules/runs/application/run-settlements';
import { RunSettler } from '../../../src/modules/runs/application/run-settler';
import { TransactionRunner } from '../../../src/platform/database/transaction-runner';
import type { EventBus } from '../../../src/platform/pubsub/event-bus';
import type { Checkpoint } from '../../../src/modules/runs/core/checkpoint';
import { Lease, RunsRepository, StoredStep } from '../../../src/modules/runs/persistence/runs.repository';
import { ConfigurationsRepository } from '../../../src/modules/configurations/persistence/configurations.repository';
import { AuthRepository } from '../../../src/modules/auth/persistence/auth.repository';
import { ContentRepository } from '../../../src/modules/content/persistence/content.repository';
import { RunReadsRepository } from '../../../src/modules/runs/persistence/run-reads.repository';
import {
  RunClaimsRepository,
  type JoinedClaim,
  type StartJoins,
} from '../../../src/modules/runs/persistence/run-claims.repository';
import { RunSettlingRepository } from '../../../src/modules/runs/persistence/run-settling.repository';
import { RunReapingRepository } from '../../../src/modules/runs/persistence/run-reaping.repository';
import { useTestDatabase } from '../../support/test-database';
import { TEST_STATE_KEY } from '../../support/test-env';

/** The runs persistence and vault wired by hand on one data source, with demo references. */
export interface RunsKit {
  readonly ds: DataSource;
  readonly repository: RunsRepository;
  readonly reads: RunReadsRepository;
  readonly claims: RunClaimsRepository;
  /** The reaper's statement. */
  readonly reaping: RunReapingRepository;
  readonly settling: RunSettlingRepository;
  readonly vault: StateVault;
  readonly configurationId: number;
  readonly ownerId: number;
  /** What a queued claim reads with it, from the owning modules' repositories. */
  readonly joins: StartJoins<unknown, unknown, unknown>;
  /** The queued claim as QueuedRuns sends it: with the configuration, owner and page joined. */
  claimQueued(claimedBy: string, limit: number): Promise<Array<JoinedClaim<unknown, unknown, unknown>>>;
}

export async function runsKit(ds: DataSource): Promise<RunsKit> {
  const [configuration] = await ds.query<Array<{ id: number }>>(
    `SELECT id FROM configuration WHERE identifier = 'demo-editor'`,
  );
  const [owner] = await ds.query<Array<{ id: number }>>(`SELECT id FROM app_user WHERE username = 'alice'`);
  const vault = new StateVault({ stateEncryptionKey: TEST_STATE_KEY, dataDir: tmpdir() } as AppConfig);
  const claims = new RunClaimsRepository(ds);
  const joins = {
    configuration: new ConfigurationsRepository(ds).joinedById,
    owner: new AuthRepository(ds).joinedUserWithGroups,
    page: new ContentRepository(ds).joinedRunPageWithSiteLanguages,
  };
  return {
    ds,
    repository: new RunsRepository(ds),
    reads: new RunReadsRepository(ds),
    claims,
    reaping: new RunReapingRepository(ds),
    settling: new RunSettlingRepository(ds),
    vault,
    configurationId: configuration!.id,
    ownerId: owner!.id,
    joins,
    claimQueued: (claimedBy, limit) => claims.claimQueued(claimedBy, LEASE_SECONDS, limit, joins),
  };
}

/**
 * A test database with the runs kit for the suite it is called in (its own database, dropped
 * after the suite): read `.kit` inside the tests.
 */
export function suiteKit(): { readonly kit: RunsKit } {
  const suite = useTestDatabase();
  const holder: { kit: RunsKit } = {} as never;
  beforeAll(async () => {
    holder.kit = await runsKit(suite.ds);
  });
  return holder;
}

export const LEASE_SECONDS = 60;

/** A fresh lease for a new or claimed run. */
export const leaseFor = (runId: string, claimedBy = 'int:test'): Lease => ({
  runId,
  token: randomUUID(),
  claimedBy,
});

/** The row shape a NewRun needs, with a sealed start checkpoint. */
function newRun(kit: RunsKit, id: string, checkpoint: Checkpoint) {
  return {
    id,
    configurationId: kit.configurationId,
    ownerId: kit.ownerId,
    workspaceId: 0,
    subjectPageId: null,
    subjectLanguageId: null,
    maxIterations: 5,
    checkpoint: kit.vault.seal(id, checkpoint),
  };
}

/** A RUNNING run under a fresh lease. */
export async function runningRun(kit: RunsKit, checkpoint: Checkpoint = startCheckpoint()): Promise<Lease> {
  const id = randomUUID();
  const lease = leaseFor(id);
  await kit.repository.insertRunning(newRun(kit, id, checkpoint), lease, LEASE_SECONDS);
  return lease;
}

/** A QUEUED run. */
export async function queuedRun(kit: RunsKit, checkpoint: Checkpoint = startCheckpoint()): Promise<string> {
  const id = randomUUID();
  await kit.repository.insertQueued(newRun(kit, id, checkpoint));
  return id;
}

/** A run WAITING_FOR_APPROVAL (started, then suspended under its lease). */
export async function waitingRun(kit: RunsKit): Promise<string> {
  const lease = await runningRun(kit);
  const ok = await kit.settling.suspend(
    lease,
    {
      status: 'WAITING_FOR_APPROVAL',
      checkpoint: kit.vault.seal(lease.runId, { v: 1, kind: 'state', state: pausedState() }),
      turn: 1,
      turnDigest: 'a'.repeat(64),
      counters: { iterations: 1, promptTokens: 10, completionTokens: 5 },
    },
    [],
    null,
  );
  if (!ok) throw new Error('suspend failed');
  return lease.runId;
}

export const startCheckpoint = (prompt = 'Go'): Checkpoint => ({ v: 1, kind: 'start', prompt });

/** A plausible runtime state (the vault checks the checkpoint's shape, not the state's). */
export function pausedState(pending: boolean = true): SuspendedState {
  return {
    version: 1,
    transcript: [
      { role: 'system', content: 'You edit pages.' },
      { role: 'user', content: 'Improve the SEO title' },
    ],
    pending: pending
      ? {
          kind: 'APPROVAL',
          turn: 1,
          digest: 'a'.repeat(64),
          calls: [
            {
              callId: 'call_1',
              toolName: 'pages_update',
              writes: true,
              arguments: { seoTitle: 'X' },
              preview: ['seo'],
            },
          ],
          inputRequest: null,
        }
      : null,
    settledResults: [],
    turn: pending ? 1 : 0,
    iterations: 1,
    providerCalls: 1,
    usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
    sentCount: 2,
  } as unknown as SuspendedState;
}

export const step = (n: number): StoredStep => ({ kind: 'TOOL', round: 1, durationMs: n, payload: { n } });

/** The run row as stored (snake_case columns). */
export async function rowOf(ds: DataSource, id: string): Promise<Record<string, unknown>> {
  const rows = await ds.query<Array<Record<string, unknown>>>('SELECT * FROM run WHERE id = $1', [id]);
  if (!rows[0]) throw new Error(`no run ${id}`);
  return rows[0];
}

export async function stepSequences(ds: DataSource, id: string): Promise<number[]> {
  const rows = await ds.query<Array<{ sequence: number }>>(
    'SELECT sequence FROM run_step WHERE run_id = $1 ORDER BY sequence',
    [id],
  );
  return rows.map((r) => r.sequence);
}

/** Makes a run's lease look expired (its process stopped renewing it). */
export async function expireLease(ds: DataSource, id: string): Promise<void> {
  await ds.query(`UPDATE run SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
}

/**
 * Runs `n` calls as close together as possible: every caller waits on one barrier, which is
 * released once all of them are queued, so their statements reach the server together.
 */
export async function race<T>(n: number, call: (i: number) => Promise<T>): Promise<T[]> {
  let release!: () => void;
  const barrier = new Promise<void>((r) => (release = r));
  const calls = Array.from({ length: n }, async (_, i) => {
    await barrier;
    return call(i);
  });
  release();
  return Promise.all(calls);
}

/** The one settler, wired by hand on the kit's data source, publishing to `bus`. */
export function settlerFor(
  kit: RunsKit,
  bus: Pick<EventBus, 'publish'>,
  settlements = new RunSettlements(),
): RunSettler {
  return new RunSettler(
    kit.settling,
    settlements,
    new RunEventsPublisher(bus as EventBus),
    new TransactionRunner(kit.ds),
    kit.reaping,
  );
}
