import { Injectable, Logger } from '@nestjs/common';
import { Refusal } from '../../../common/refusal';
import type { AuthUser } from '../../../platform/auth/auth-user';
import type { DecisionTake, RunView } from '../../runs';
import { isStatementError } from '../../../platform/database/query-results';
import type { RecordedKind } from '../core/decision-checks';
import type { DecisionView } from '../core/decision-view';
import { DecisionsRepository, type NewDecision } from '../persistence/decisions.repository';
import { ApprovalVotesRepository } from '../persistence/approval-votes.repository';
import { DecisionListeners } from './decision-listeners';

/** What a decision record says, before it is stored. */
export interface DecisionEntry {
  readonly id: string;
  readonly kind: RecordedKind;
  readonly reason?: 'VARIANT' | 'SKIP' | null;
  readonly idempotencyKey?: string | null;
  readonly fingerprint: string;
  readonly path: 'INLINE' | 'DURABLE';
}

/**
 * The decision record (docs/decisions.md, "The decision record"): who decided which turn of a
 * run, how, on which path, under which idempotency key. It rides in the claim's own statement
 * (`take`), so the claim and the record stand or fall together; a record that cannot be stored
 * refuses the decision (NOT_AUDITABLE) and nothing is claimed.
 */
@Injectable()
export class DecisionRecords {
  private readonly logger = new Logger(DecisionRecords.name);

  constructor(
    private readonly repository: DecisionsRepository,
    private readonly votes: ApprovalVotesRepository,
    private readonly listeners: DecisionListeners,
  ) {}

  /**
   * Check 14 (order 17): the record as the runs module's claim carries it (`RunDecisions.claim`
   * / `record`), with what must commit with it: `alongside` (the chat's claim of its
   * conversation), then the listeners, where any listens. `recorded` is the stored record once
   * the claim was taken.
   */
  async take(
    user: AuthUser | null,
    run: RunView,
    entry: DecisionEntry,
    alongside?: () => Promise<void>,
  ): Promise<{ take: DecisionTake; recorded: (at: Date) => DecisionView }> {
    const row = newDecision(user, run, entry);
    const recorded = (at: Date): DecisionView => ({
      ...row,
      decidedAt: at,
      outcome: null,
      settledAt: null,
      handedBackCode: null,
    });
    const heard = await this.listeners.heard(row.kind);
    const rider = DecisionsRepository.recordRider(row);
    const failed = (e: unknown) => this.failed(run, e);
    if (!heard && !alongside) return { take: { rider, alongside: null, failed }, recorded };
    const together = async (at: Date) => {
      await alongside?.();
      if (heard) await this.listeners.notify({ decision: recorded(at), run });
    };
    return { take: { rider, alongside: together, failed }, recorded };
  }

  /**
   * The record written on its own, inside the caller's transaction, or NOT_AUDITABLE; its
   * listeners are told in the same transaction. The expiry that fails a run writes it with no
   * user and with that `outcome`.
   */
  async write(
    user: AuthUser | null,
    run: RunView,
    entry: DecisionEntry,
    outcome: string | null = null,
  ): Promise<DecisionView> {
    let decision: DecisionView;
    try {
      decision = await this.repository.insert(newDecision(user, run, entry), outcome);
    } catch (e) {
      throw this.failed(run, e);
    }
    await this.listeners.notify({ decision, run });
    return decision;
  }

  /** What a failed statement that stores a record means: NOT_AUDITABLE, the database's words kept in the log. */
  private failed(run: RunView, error: unknown): unknown {
    if (!isStatementError(error)) return error;
    this.logger.error({ runId: run.id, err: error }, 'decision could not be audited');
    return new Refusal('NOT_AUDITABLE', 'The decision could not be recorded, so nothing was done');
  }

  /**
   * The decision a user took on a run under an idempotency key (or their vote on a quorum turn
   * under it): null when none; the earlier decision when its fingerprint matches;
   * IDEMPOTENCY_KEY_REUSED when it does not. why: the vote that completed a quorum is also a
   * decision, so the decision is looked up first.
   */
  async earlierUnderKey(
    runId: string,
    userId: number,
    key: string,
    fingerprint: string,
  ): Promise<DecisionView | null> {
    const earlier =
      (await this.repository.findByKey(runId, userId, key)) ??
      (await this.votes.findByKey(runId, userId, key));
    if (!earlier) return null;
    if (earlier.fingerprint !== fingerprint) {
      throw new Refusal('IDEMPOTENCY_KEY_REUSED', 'This idempotency key was used for a different decision');
    }
    return earlier;
  }

  /** The decisions taken on a run, by turn (the audit trail; `Run.decisions`). */
  async listForRun(runId: string): Promise<DecisionView[]> {
    return this.repository.listForRun(runId);
  }
}

function newDecision(user: AuthUser | null, run: RunView, entry: DecisionEntry): NewDecision {
  return {
    id: entry.id,
    runId: run.id,
    turn: run.turn,
    kind: entry.kind,
    decidedBy: user?.id ?? null,
    denialReason: entry.kind === 'DENY' ? (entry.reason ?? null) : null,
    turnDigest: run.turnDigest!,
    path: entry.path,
    idempotencyKey: entry.idempotencyKey ?? null,
    fingerprint: entry.fingerprint,
  };
}
