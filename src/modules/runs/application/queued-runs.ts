import { Inject, Injectable } from '@nestjs/common';
import { RunClaimsRepository } from '../persistence/run-claims.repository';
import { StateUnreadableError } from '../../../agent';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { PrincipalsService } from '../../auth';
import { ConfigurationsService, type ConfigurationSettings } from '../../configurations';
import { PagesService } from '../../content';
import type { AuthUser } from '../../../platform/auth/auth-user';
import type { Checkpoint } from '../core/checkpoint';
import type { RunView } from '../core/run-view';
import { pickupPlan, UNREADABLE_CHECKPOINT_MESSAGE } from '../core/pickup.policy';
import { type ClaimedRun } from '../persistence/runs.repository';
import { RunExecutor } from './run-executor';
import { RunSettler } from './run-settler';
import { StateVault } from './state-vault';

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

  /** Claims up to `limit` queued runs; with `olderThanSeconds` only those queued that long. */
  async claim(workerId: string, limit: number, olderThanSeconds = 0): Promise<ClaimedRun[]> {
    return this.claims.claimQueued(workerId, this.config.runLeaseSeconds, limit, olderThanSeconds);
  }

  /** Claims this one queued run (a chat turn carried where it was queued); null when taken. */
  async claimOne(runId: string, claimedBy: string): Promise<ClaimedRun | null> {
    return this.claims.claimQueuedById(runId, claimedBy, this.config.runLeaseSeconds);
  }

  /**
   * Starts a claimed queued run: `when-free` (the worker's claims) once a slot of this process
   * is free, `now` where the caller saw one free (a chat turn carried where it was queued).
   */
  async begin(claim: ClaimedRun, start: 'now' | 'when-free' = 'when-free'): Promise<Begun> {
    const { lease, run } = claim;
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
    const { configuration, owner, pageId } = await this.startReads(run);
    // why: a decision whose continuation was cut off past its first write is finished from a
    // plain checkpoint here; the settler still records its outcome when the run settles.
    this.executor.launch({ lease, run, configuration, checkpoint, owner, pageId }, start);
    return 'launched';
  }

  /**
   * What a start reads before its first step: the configuration, the owner and, for a run
   * without a subject page, the page its tools default to. why side by side: read one after
   * another (the owner and the page by the segment, in its slot) they were three round trips
   * between the claim and the first step, 0.3-0.8 ms each on the bench's machine.
   */
  private async startReads(
    run: RunView,
  ): Promise<{ configuration: ConfigurationSettings; owner?: AuthUser; pageId?: number }> {
    const [configuration, owner, defaultPage] = await Promise.all([
      this.configurations.getById(run.configurationId),
      this.principals.load(run.ownerId),
      run.subjectPageId === null ? this.pages.defaultPageId() : undefined,
    ]);
    return {
      configuration,
      // a missing owner is the segment's to find and fail the run over, as before
      ...(owner ? { owner } : {}),
      ...(run.subjectPageId === null ? { pageId: defaultPage ?? 0 } : {}),
    };
  }

  private async fail(claim: ClaimedRun, message: string): Promise<'failed'> {
    await this.settler.settle({ lease: claim.lease }, { kind: 'FAILED', reason: 'NOT_RETRYABLE', message });
    return 'failed';
  }
}
