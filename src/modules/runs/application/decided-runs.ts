import { Inject, Injectable } from '@nestjs/common';
import { RunReadsRepository } from '../persistence/run-reads.repository';
import { RunClaimsRepository } from '../persistence/run-claims.repository';
import { decisionStep, type PendingCall, type PendingTurn } from '../../../agent';
import type { ErrorCode } from '../../../common/error-codes';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import type { AuthUser } from '../../../platform/auth/auth-user';
import type { ConfigurationSettings } from '../../configurations';
import { PagesService, type PageTextLocator, type TextReads } from '../../content';
import type { Checkpoint } from '../core/checkpoint';
import { RunsRepository, type ClaimedRun } from '../persistence/runs.repository';
import { RunEventsPublisher } from './run-events';
import { RunExecutor } from './run-executor';
import { RunSettler } from './run-settler';
import { StateVault } from './state-vault';

export type DecidedCheckpoint = Extract<Checkpoint, { kind: 'decided' }>;

/** How a claimed decision is carried out (`DecidedRuns.carryOut`). */
export interface CarryOut {
  /** Who decided, as the decision's step records it. */
  readonly deciderId: number | null;
  readonly configuration: ConfigurationSettings;
  /** The decision's step is recorded already (a requeued run cut off after it). */
  readonly stepRecorded: boolean;
  /** The run's owner where the caller has loaded it (a pickup loads all its runs' at once). */
  readonly owner?: AuthUser;
}

/** A claimed decision the approvals module's checks let through, and how to carry it out. */
export interface DecisionToCarryOut {
  readonly claim: ClaimedRun;
  readonly decided: DecidedCheckpoint;
  readonly how: CarryOut;
}

/**
 * The runs module's side of the durable path: recorded decisions claimed for this process
 * (DECISION_RECORDED -> RUNNING, SKIP LOCKED), their sealed decision opened once, and either
 * carried out (the decision's step recorded where it is not yet, then the continuation) or
 * handed back to the waiting state through the settler. Which of the two is the approvals
 * module's policy (RecordedDecisions).
 */
@Injectable()
export class DecidedRuns {
  constructor(
    private readonly repository: RunsRepository,
    private readonly reads: RunReadsRepository,
    private readonly claims: RunClaimsRepository,
    private readonly vault: StateVault,
    private readonly executor: RunExecutor,
    private readonly settler: RunSettler,
    private readonly events: RunEventsPublisher,
    private readonly pages: PagesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Up to `limit` recorded decisions, oldest first; with `olderThanSeconds` only those that waited that long. */
  async claimRecorded(claimedBy: string, limit: number, olderThanSeconds = 0): Promise<ClaimedRun[]> {
    return this.claims.claimRecorded(claimedBy, this.config.runLeaseSeconds, limit, olderThanSeconds);
  }

  /** The decision sealed into a claimed run, or why it cannot be carried out. */
  openDecided(claim: ClaimedRun): DecidedCheckpoint | { readonly unusable: string } {
    let checkpoint: Checkpoint;
    try {
      checkpoint = this.vault.open(claim.run.id, claim.run.checkpoint);
    } catch {
      return { unusable: 'The recorded decision cannot be read' };
    }
    if (checkpoint.kind !== 'decided' || !checkpoint.state.pending) {
      return { unusable: 'The run holds no recorded decision' };
    }
    return checkpoint;
  }

  /** Whether the decision's APPROVAL / INPUT step is recorded already (a run cut off after it). */
  async stepRecorded(claim: ClaimedRun): Promise<boolean> {
    return this.reads.decisionStepRecorded(claim.run.id, claim.run.turn);
  }

  /**
   * Carries out claimed decisions: records the decision's step of each where it is not yet (one
   * statement for all of them), then continues each run in this process. A run whose lease was
   * lost meanwhile is left alone (another process holds it now).
   */
  async carryOut(entries: readonly DecisionToCarryOut[]): Promise<void> {
    const fresh = entries
      .filter(({ how }) => !how.stepRecorded)
      .map(({ claim, decided, how }) => ({
        lease: claim.lease,
        step: decisionStep(decided.decision, decided.state, how.deciderId),
      }));
    const [sequences, readAhead] = await Promise.all([
      this.repository.appendSteps(fresh, this.config.runLeaseSeconds),
      this.readAhead(entries),
    ]);
    const steps = new Map(fresh.map(({ lease, step }) => [lease.runId, step]));
    // why: each run's decision step goes out before its continuation starts (its later events
    // follow it), but the runs do not wait for one another: over Redis every publish is a round
    // trip, and a pickup of ten runs launched its last one ten round trips late.
    await Promise.all(
      entries.map(async ({ claim, decided, how }) => {
        const { run, lease } = claim;
        let stepCount = run.stepCount;
        const step = steps.get(run.id);
        if (step) {
          const sequence = sequences.get(run.id);
          if (sequence === undefined) return; // fenced out: another process holds the run now
          stepCount = sequence;
          await this.events.step(
            run.id,
            { ...step, sequence, at: new Date().toISOString() },
            'RUNNING',
            run.turn,
          );
        }
        this.executor.launch(
          {
            lease,
            run: { ...run, stepCount },
            configuration: how.configuration,
            checkpoint: decided,
            ...(how.owner ? { owner: how.owner } : {}),
            ...(readAhead ? { readAhead } : {}),
          },
          'when-free',
        );
      }),
    );
  }

  /**
   * The page texts the approved calls of these runs start from, in one statement for all of
   * them (none without such a call). why: the pickup's other reads are shared by its runs
   * already, and each write's own read was a statement per run; the write is still guarded on
   * the text it starts from when it is sent (`PagesService.readAhead`).
   */
  private async readAhead(entries: readonly DecisionToCarryOut[]): Promise<TextReads | null> {
    const at = entries.flatMap(({ claim, decided }) =>
      decided.decision.kind === 'approve' && decided.state.pending?.kind === 'APPROVAL'
        ? decided.state.pending.calls.flatMap((call) => pageTextOf(call, claim.run.workspaceId))
        : [],
    );
    return at.length > 0 ? this.pages.readAhead(at) : null;
  }

  /** Back to the waiting state with the paused state it had, and why; false when fenced out. */
  async handBack(claim: ClaimedRun, decided: DecidedCheckpoint, code: ErrorCode): Promise<boolean> {
    const pending = decided.state.pending as PendingTurn;
    const row = await this.settler.settle(
      { lease: claim.lease },
      {
        kind: 'HANDED_BACK',
        status: pending.kind === 'APPROVAL' ? 'WAITING_FOR_APPROVAL' : 'WAITING_FOR_INPUT',
        checkpoint: this.vault.seal(claim.run.id, { v: 1, kind: 'state', state: decided.state }),
        pending,
        code,
      },
    );
    return row !== null;
  }

  /** A recorded decision that cannot be carried out nor handed back: the run fails. */
  async fail(claim: ClaimedRun, message: string): Promise<void> {
    await this.settler.settle({ lease: claim.lease }, { kind: 'FAILED', reason: 'NOT_RETRYABLE', message });
  }
}

/** The page text a write call names (a page and a language, in the run's workspace), if any. */
function pageTextOf(call: PendingCall, workspaceId: number): PageTextLocator[] {
  const { pageId, languageId } = call.arguments;
  if (!call.writes || !Number.isInteger(pageId) || !Number.isInteger(languageId)) return [];
  return [{ pageId: pageId as number, languageId: languageId as number, workspaceId }];
}
