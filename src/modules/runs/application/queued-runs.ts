import { Inject, Injectable } from '@nestjs/common';
import { RunClaimsRepository, type JoinedClaim, type StartJoins } from '../persistence/run-claims.repository';
import { StateUnreadableError } from '../../../agent';
import { notFound } from '../../../common/refusal';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { PrincipalsService } from '../../auth';
import { ConfigurationsService, type ConfigurationSettings } from '../../configurations';
import { PagesService, type PageAccess } from '../../content';
import type { AuthUser } from '../../../platform/auth/auth-user';
import type { Checkpoint } from '../core/checkpoint';
import { pickupPlan, UNREADABLE_CHECKPOINT_MESSAGE } from '../core/pickup.policy';
import { type ClaimedRun } from '../persistence/runs.repository';
import { RunExecutor } from './run-executor';
import { RunSettler } from './run-settler';
import { StateVault } from './state-vault';

/** A claimed queued run with what its start reads, read in the claim's statement. */
export type QueuedClaim = JoinedClaim<ConfigurationSettings, AuthUser, PageAccess>;

/** What became of a claimed queued run. */
export type Begun = 'launched' | 'failed' | 'decided';

/**
 * Queued runs for a worker: claimed (QUEUED -> RUNNING, `FOR UPDATE SKIP LOCKED`, oldest
 * first, each under a fresh lease) and begun in this process from their checkpoint. A run
 * whose checkpoint still holds a decision (`decided`: requeued before its decision was carried
 * out) is the approvals module's to resume; one whose checkpoint cannot be used fails
 * NOT_RETRYABLE under the lease just taken.
 */
@Injectable()
export class QueuedRuns {
  private startJoins: StartJoins<ConfigurationSettings, AuthUser, PageAccess> | null = null;

  constructor(
    private readonly claims: RunClaimsRepository,
    private readonly vault: StateVault,
    private readonly executor: RunExecutor,
    private readonly settler: RunSettler,
    private readonly configurations: ConfigurationsService,
    private readonly principals: PrincipalsService,
    private readonly pages: PagesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Claims up to `limit` queued runs; with `olderThanSeconds` only those queued that long. Each
   * comes with what its start reads (QueuedClaim), in the claim's own statement.
   */
  async claim(workerId: string, limit: number, olderThanSeconds = 0): Promise<QueuedClaim[]> {
    return this.claims.claimQueued(
      workerId,
      this.config.runLeaseSeconds,
      limit,
      this.joins(),
      olderThanSeconds,
    );
  }

  /** Claims this one queued run (a chat turn carried where it was queued); null when taken. */
  async claimOne(runId: string, claimedBy: string): Promise<QueuedClaim | null> {
    return this.claims.claimQueuedById(runId, claimedBy, this.config.runLeaseSeconds, this.joins());
  }

  /**
   * Starts a claimed queued run: `when-free` (the worker's claims) once a slot of this process
   * is free, `now` where the caller saw one free (a chat turn carried where it was queued).
   */
  async begin(claim: QueuedClaim, start: 'now' | 'when-free' = 'when-free'): Promise<Begun> {
    const { lease, run, joined } = claim;
    let checkpoint: Checkpoint;
    try {
      checkpoint = this.vault.open(run.id, run.checkpoint);
    } catch (e) {
      if (!(e instanceof StateUnreadableError)) throw e;
      return this.fail(claim, UNREADABLE_CHECKPOINT_MESSAGE);
    }
    const plan = pickupPlan(checkpoint);
    if (plan.kind === 'fail') return this.fail(claim, plan.message);
    if (checkpoint.kind === 'decided') return 'decided';
    // why: configurations are only ever soft-deleted and the run's foreign key holds, so the
    // claim always finds one; as `getById` did, a missing one leaves the claim to the reaper.
    const configuration = joined.configuration;
    if (!configuration) throw notFound('Configuration not found');
    // why: a decision whose continuation was cut off past its first write is finished from a
    // plain checkpoint here; the settler still records its outcome when the run settles.
    this.executor.launch(
      {
        lease,
        run,
        configuration,
        checkpoint,
        // a missing owner is the segment's to find and fail the run over
        ...(joined.owner ? { owner: joined.owner } : {}),
        ...(run.subjectPageId === null ? { pageId: joined.page?.page.id ?? 0 } : {}),
      },
      start,
    );
    return 'launched';
  }

  /**
   * What a start needs before its first step, read with the claim: the configuration, the
   * owner and the page the run is about (for a run without a subject page, the page its tools
   * default to). why in the claim: read after it, they were a round trip between the claim and
   * the first step, about 1 ms of a queued start's 2.2 on the bench's machine.
   */
  private joins(): StartJoins<ConfigurationSettings, AuthUser, PageAccess> {
    return (this.startJoins ??= {
      configuration: this.configurations.joinedById(),
      owner: this.principals.joinedById(),
      page: this.pages.joinedRunPageAccess(),
    });
  }

  private async fail(claim: ClaimedRun, message: string): Promise<'failed'> {
    await this.settler.settle({ lease: claim.lease }, { kind: 'FAILED', reason: 'NOT_RETRYABLE', message });
    return 'failed';
  }
}
