import { Inject, Injectable } from '@nestjs/common';
import { RunClaimsRepository } from '../persistence/run-claims.repository';
import { StateUnreadableError } from '../../../agent';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { ConfigurationsService } from '../../configurations';
import type { Checkpoint } from '../core/checkpoint';
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
    const configuration = await this.configurations.getById(run.configurationId);
    // why: a decision whose continuation was cut off past its first write is finished from a
    // plain checkpoint here; the settler still records its outcome when the run settles.
    this.executor.launch({ lease, run, configuration, checkpoint }, start);
    return 'launched';
  }

  private async fail(claim: ClaimedRun, message: string): Promise<'failed'> {
    await this.settler.settle({ lease: claim.lease }, { kind: 'FAILED', reason: 'NOT_RETRYABLE', message });
    return 'failed';
  }
}
