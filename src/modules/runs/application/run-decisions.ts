import { Inject, Injectable } from '@nestjs/common';
import { RunReadsRepository } from '../persistence/run-reads.repository';
import { RunClaimsRepository } from '../persistence/run-claims.repository';
import { randomUUID } from 'node:crypto';
import {
  decisionStep,
  digestsEqual,
  StateUnreadableError,
  type Decision,
  type Step,
  type SuspendedState,
} from '../../../agent';
import { Refusal } from '../../../common/refusal';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { TransactionRunner, type Tx } from '../../../platform/database/transaction-runner';
import { Metrics } from '../../../platform/metrics/metrics';
import type { ConfigurationSettings } from '../../configurations';
import type { RunView } from '../core/run-view';
import type { Lease } from '../persistence/runs.repository';
import type { ClaimRider, DecisionClaimWrite } from '../persistence/run-rows';
import { RunEventsPublisher } from './run-events';
import { RunExecutor } from './run-executor';
import { StateVault } from './state-vault';
import { ClaimsInFlight } from './claims-in-flight';
import { WorkSignal } from './work-signal';
import { WorkerPresence } from './worker-presence';

type WaitingStatus = 'WAITING_FOR_APPROVAL' | 'WAITING_FOR_INPUT';

/** A decision on a waiting run, as the approvals module has checked it so far. */
export interface DecisionOnRun {
  /** The run as read at the start of the decision (once). */
  readonly run: RunView;
  /** Its suspended state, opened once (`openSuspended`). */
  readonly state: SuspendedState;
  /** The digest of the turn the decider was shown. */
  readonly turnDigest: string;
  /** What the model is told (who decided, and how). */
  readonly decision: Decision;
  /** Who decided: the user id recorded in the decision step; null for the expiry. */
  readonly deciderId: number | null;
  /** The id the decision record will have (sealed into the checkpoint with the claim). */
  readonly decisionId: string;
  /** The expiry claims in nobody's name, and only once the deadline has passed. */
  readonly expiry?: boolean;
}

/**
 * The approvals module's part of a claim: its decision record, riding in the claim's statement,
 * and what else must commit with it (the chat's claim of its conversation, the record's
 * listeners), told the claim's time; a Refusal it throws undoes the claim. Without `alongside`
 * the claim is one statement with no transaction around it.
 */
export interface DecisionTake {
  readonly rider: ClaimRider;
  readonly alongside: ((at: Date) => Promise<void>) | null;
  /** What a failure of the claim's statement means to the rider's module: the error to throw. */
  readonly failed: (error: unknown) => unknown;
}

/** An inline claim: the run as it now is, the lease the continuation runs under. */
export interface ClaimedDecision {
  readonly run: RunView;
  readonly lease: Lease;
  readonly state: SuspendedState;
  readonly decision: Decision;
  readonly decisionId: string;
  /** When the claim was taken (PostgreSQL's clock): the decision record's time. */
  readonly at: Date;
}

/**
 * The runs module's side of a decision: a waiting run's state opened once, the claim (inline:
 * WAITING_* -> RUNNING, with the decision's step and its sealed checkpoint; durable: WAITING_*
 * -> DECISION_RECORDED) in ONE transaction with the approvals policy, the events after the
 * commit, and the continuation. Exactly one of any number of concurrent claims wins: the
 * claim is one conditional UPDATE on the waiting status, the turn and its digest.
 */
@Injectable()
export class RunDecisions {
  private readonly inFlight = new ClaimsInFlight();

  constructor(
    private readonly reads: RunReadsRepository,
    private readonly claims: RunClaimsRepository,
    private readonly vault: StateVault,
    private readonly executor: RunExecutor,
    private readonly events: RunEventsPublisher,
    private readonly transactions: TransactionRunner,
    private readonly signal: WorkSignal,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
    private readonly presence: WorkerPresence,
  ) {}

  /** The paused state a waiting run holds; STATE_UNREADABLE where it cannot be read (it keeps waiting). */
  openSuspended(run: RunView): SuspendedState {
    try {
      const checkpoint = this.vault.open(run.id, run.checkpoint);
      if (checkpoint.kind !== 'state' || !checkpoint.state.pending) {
        throw new StateUnreadableError('The stored state holds no pending turn');
      }
      return checkpoint.state;
    } catch (e) {
      if (e instanceof StateUnreadableError) {
        throw new Refusal('STATE_UNREADABLE', "The run's suspended state cannot be read; it keeps waiting");
      }
      throw e;
    }
  }

  /** Workers whose heartbeat is fresh: whether the durable path has anyone to carry it out. */
  async liveWorkers(): Promise<number> {
    return this.presence.liveWorkers();
  }

  /**
   * Runs one decision on a waiting run's turn (what follows the run's own checks: the
   * configuration's, a vote, the claim or the record) one at a time per run in this process.
   * A decision on the turn and digest that an earlier one of this process took meanwhile is
   * refused ALREADY_RESUMING without running: what check 3 answers once that one committed,
   * here without a statement. `took` tells whether a result left the waiting turn.
   */
  async oneAtATime<T>(
    on: Pick<DecisionOnRun, 'run' | 'turnDigest'>,
    decide: () => Promise<T>,
    took: (result: T) => boolean,
  ): Promise<T> {
    return this.inFlight.run(
      { runId: on.run.id, turn: on.run.turn, digest: on.turnDigest, seen: waitingSeen(on.run) },
      decide,
      took,
      lostToAnother,
      // why: never queued inside a caller's transaction (see ClaimsInFlight.run).
      !this.transactions.inTransaction,
    );
  }

  /**
   * The inline claim: the run claimed under a fresh lease with the decided checkpoint, the
   * decision's step and the approvals module's record, in one statement; `take.alongside` (in a
   * transaction with it, where there is one) may still refuse and undo it. After the commit the
   * inbox and the run's streams hear of it; `continueClaimed` then carries it out.
   */
  async claim(on: DecisionOnRun, take: DecisionTake): Promise<ClaimedDecision> {
    const { run, state, decision, decisionId } = on;
    const lease: Lease = { runId: run.id, token: randomUUID(), claimedBy: this.executor.instanceId };
    const checkpoint = this.vault.seal(run.id, { v: 1, kind: 'decided', state, decision, decisionId });
    const step = decisionStep(decision, state, on.deciderId);
    return this.unitFor(take)(async (tx) => {
      const claimed = await this.claims
        .claimForDecision(claimOf(on, checkpoint), lease, this.config.runLeaseSeconds, step, take.rider)
        .catch((e: unknown) => {
          throw take.failed(e);
        });
      if (claimed === null) throw await this.lostClaim(on);
      await take.alongside?.(claimed.at);
      tx.afterCommit(() => this.announceClaim(run, step, claimed.sequence));
      tx.afterCommit(() => this.metrics.decisionTaken(decision.kind, 'inline'));
      const now = {
        ...run,
        status: 'RUNNING',
        hadDecision: true,
        stepCount: claimed.sequence,
        waitingSince: null,
        handBack: null,
      };
      return { run: now, lease, state, decision, decisionId, at: claimed.at };
    });
  }

  /**
   * Carries out a claimed decision in the background of this process; `pageId` is the page the
   * run is about where the caller has read it (see `Segment.pageId`).
   */
  continueClaimed(claimed: ClaimedDecision, configuration: ConfigurationSettings, pageId?: number): void {
    const { run, lease, state, decision, decisionId } = claimed;
    this.executor.launch({
      lease,
      run,
      configuration,
      pageId,
      checkpoint: { v: 1, kind: 'decided', state, decision, decisionId },
    });
  }

  /**
   * The durable claim: WAITING_* -> DECISION_RECORDED with the decision sealed into the
   * checkpoint and the approvals module's record, in one statement (with `take.alongside` as in
   * `claim`); after the commit the inbox, the progress stream and the workers hear of it. The
   * run as it now is, and the claim's time.
   */
  async record(on: DecisionOnRun, take: DecisionTake): Promise<{ run: RunView; at: Date }> {
    const { run, state, decision, decisionId } = on;
    const checkpoint = this.vault.seal(run.id, { v: 1, kind: 'decided', state, decision, decisionId });
    return this.unitFor(take)(async (tx) => {
      const recorded = await this.claims
        .recordDecision(claimOf(on, checkpoint), take.rider)
        .catch((e: unknown) => {
          throw take.failed(e);
        });
      if (recorded === null) throw await this.lostClaim(on);
      await take.alongside?.(recorded.at);
      tx.afterCommit(() => this.metrics.decisionTaken(decision.kind, 'durable'));
      // why: side by side, the run's own stream first: over Redis each publish is a round trip,
      // which the decider's receipt would otherwise wait for one after another.
      tx.afterCommit(() =>
        Promise.all([
          this.events.progress(run.id, run.stepCount, 'DECISION_RECORDED', run.turn),
          this.events.inboxChanged(run.id),
          this.signal.notify(),
        ]).then(() => undefined),
      );
      const now = {
        ...run,
        status: 'DECISION_RECORDED',
        hadDecision: true,
        waitingSince: null,
        handBack: null,
      };
      return { run: now, at: recorded.at };
    });
  }

  /** A transaction where something must commit with the claim, else the claim's one statement alone. */
  private unitFor(take: DecisionTake): <T>(work: (tx: Tx) => Promise<T>) => Promise<T> {
    return take.alongside
      ? (work) => this.transactions.run(work)
      : (work) => this.transactions.runOneWrite(work);
  }

  /**
   * Locks the run while it waits for approval on the decider's turn and digest, before its
   * deadline, until the caller's transaction ends (a quorum's votes queue here); the refusal
   * a claim would get where it no longer waits so.
   */
  async lockTurn(on: Pick<DecisionOnRun, 'run' | 'turnDigest'>): Promise<void> {
    if (await this.claims.lockWaitingTurn(on.run.id, on.run.turn, on.turnDigest)) return;
    throw await this.lostClaim(on);
  }

  /** Whether the run's approval deadline has passed (PostgreSQL's clock, never this process's). */
  async deadlinePassed(run: RunView): Promise<boolean> {
    return run.expiresAt !== null && (await this.claims.deadlinePassed(run.id));
  }

  /** The approval wait overdue longest, locked (SKIP LOCKED) until the caller's transaction ends. */
  async lockDueExpiry(): Promise<RunView | null> {
    return this.claims.lockDueExpiry();
  }

  /**
   * Why a claim changed no row: the run still waits on the same turn, so the digest the
   * decider saw is not the turn's (STALE_TURN), or its deadline passed (APPROVAL_EXPIRED);
   * otherwise another decision, the expiry or a cancel took it first (ALREADY_RESUMING).
   */
  private async lostClaim(on: Pick<DecisionOnRun, 'run' | 'turnDigest'>): Promise<Refusal> {
    const now = await this.reads.findById(on.run.id);
    const sameTurn = now !== null && now.status === on.run.status && now.turn === on.run.turn;
    if (sameTurn && (!now.turnDigest || !digestsEqual(now.turnDigest, on.turnDigest))) {
      return staleTurn(now.turn);
    }
    if (sameTurn && (await this.deadlinePassed(now))) return approvalExpired();
    return lostToAnother();
  }

  /**
   * The claimed run's step on its streams and the inbox's change, side by side and the run's
   * own first. why: over Redis each publish is a round trip; the decider's first event should
   * not wait for the inbox's, nor the receipt for both one after the other.
   */
  private async announceClaim(run: RunView, step: Step, sequence: number): Promise<void> {
    await Promise.all([
      this.events.step(run.id, { ...step, sequence, at: new Date().toISOString() }, 'RUNNING', run.turn),
      this.events.inboxChanged(run.id),
    ]);
  }
}

/**
 * The waiting a read of the run found: when it began and the step count then. why both: a
 * hand-back opens the same turn again with a new `waiting_since`, and an inline claim has
 * added its step by then; `waitingSince` alone is read to the millisecond.
 */
function waitingSeen(run: RunView): string {
  return `${run.waitingSince?.getTime() ?? '-'}:${run.stepCount}`;
}

/** The refusal for a claim another decision on the same turn won. */
function lostToAnother(): Refusal {
  return new Refusal('ALREADY_RESUMING', 'Another decision on this run was taken first');
}

/** The refusal for a decision that arrives after the turn's deadline. */
export function approvalExpired(): Refusal {
  return new Refusal('APPROVAL_EXPIRED', 'The deadline for this decision has passed');
}

/** The refusal for a digest that is not the waiting turn's. */
export function staleTurn(turn: number): Refusal {
  return new Refusal('STALE_TURN', 'This proposal changed since it was shown; reload it', { turn });
}

/** The claim of the turn the decider saw, storing the sealed `decided` checkpoint. */
function claimOf(on: DecisionOnRun, checkpoint: string): DecisionClaimWrite {
  const { run } = on;
  return {
    runId: run.id,
    from: run.status as WaitingStatus,
    turn: run.turn,
    turnDigest: on.turnDigest,
    checkpoint,
    expiry: on.expiry,
  };
}
