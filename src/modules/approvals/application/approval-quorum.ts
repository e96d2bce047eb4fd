import { Injectable } from '@nestjs/common';
import { Refusal } from '../../../common/refusal';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { TransactionRunner } from '../../../platform/database/transaction-runner';
import { RunDecisions, RunEventsPublisher, type DecisionOnRun } from '../../runs';
import type { DecisionView } from '../core/decision-view';
import { ApprovalVotesRepository } from '../persistence/approval-votes.repository';
import { DeciderGate } from './decider-gate';

/** A vote as it asks to be counted. */
export interface VoteEntry {
  readonly id: string;
  readonly idempotencyKey?: string | null;
  readonly fingerprint: string;
  readonly path: 'INLINE' | 'DURABLE';
}

/**
 * Quorums (docs/decisions.md, "Quorums"): an approval of a turn that needs N distinct
 * approvers is a vote. In one transaction the run is locked on the turn and digest the voter
 * saw (so concurrent votes queue one after another), the vote is stored (a second one by the
 * same person: ALREADY_VOTED), and the Nth vote goes on to claim the run like any single
 * decision (`complete`, inside the same transaction). Votes before it leave the run waiting.
 */
@Injectable()
export class ApprovalQuorum {
  constructor(
    private readonly votes: ApprovalVotesRepository,
    private readonly runDecisions: RunDecisions,
    private readonly gate: DeciderGate,
    private readonly transactions: TransactionRunner,
    private readonly events: RunEventsPublisher,
  ) {}

  /**
   * Casts the vote; `complete` runs where it is the Nth (its result returned as `completed`),
   * otherwise the vote itself is the receipt's decision.
   */
  async vote<T>(
    user: AuthUser,
    on: DecisionOnRun,
    required: number,
    entry: VoteEntry,
    complete: () => Promise<T>,
  ): Promise<{ completed: T } | { vote: DecisionView }> {
    return this.transactions.run(async (tx) => {
      await this.runDecisions.lockTurn(on);
      const stored = await this.votes.insert({
        id: entry.id,
        runId: on.run.id,
        turn: on.run.turn,
        turnDigest: on.turnDigest,
        voterId: user.id,
        path: entry.path,
        idempotencyKey: entry.idempotencyKey ?? null,
        fingerprint: entry.fingerprint,
      });
      if (!stored) throw new Refusal('ALREADY_VOTED', 'You already approved this turn; it waits for others');
      const counted = await this.votes.count(on.run.id, on.run.turn);
      if (counted >= required) return { completed: await complete() };
      // why: the completing vote meets the gate in the claim (inline) or the worker (durable);
      // an earlier one must pass it here, since it counts towards what the claim will do.
      if (!(await this.gate.permits(user, on.state.pending!))) {
        throw new Refusal('APPROVER_NOT_PERMITTED', 'You may not perform every write this turn proposes');
      }
      tx.afterCommit(() => this.events.inboxChanged(on.run.id));
      return { vote: stored };
    });
  }

  /** The approvals of a turn so far, as decisions (`PendingTurn.approvals`). */
  async approvalsOf(runId: string, turn: number): Promise<DecisionView[]> {
    return this.votes.listForTurn(runId, turn);
  }
}
