import { Injectable, Logger } from '@nestjs/common';
import { Refusal } from '../../../common/refusal';
import type { AuthUser } from '../../../platform/auth/auth-user';
import type { RunView } from '../../runs';
import type { RecordedKind } from '../core/decision-checks';
import type { DecisionView } from '../core/decision-view';
import { DecisionsRepository } from '../persistence/decisions.repository';
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
 * run, how, on which path, under which idempotency key. Written inside the claim's transaction;
 * a record that cannot be stored refuses the decision (NOT_AUDITABLE) and rolls the claim back.
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
   * Check 14: the record, or NOT_AUDITABLE; its listeners are told in the same transaction. The
   * expiry writes it with no user; where it failed the run, with that `outcome`.
   */
  async write(
    user: AuthUser | null,
    run: RunView,
    entry: DecisionEntry,
    outcome: string | null = null,
  ): Promise<DecisionView> {
    const decision = await this.insert(user, run, entry, outcome);
    await this.listeners.notify({ decision, run });
    return decision;
  }

  private async insert(
    user: AuthUser | null,
    run: RunView,
    entry: DecisionEntry,
    outcome: string | null,
  ): Promise<DecisionView> {
    try {
      return await this.repository.insert(
        {
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
        },
        outcome,
      );
    } catch (e) {
      this.logger.error({ runId: run.id, err: e }, 'decision could not be audited');
      throw new Refusal('NOT_AUDITABLE', 'The decision could not be recorded, so nothing was done');
    }
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
