import { Injectable, Logger } from '@nestjs/common';
import { digestsEqual, type PendingTurn } from '../../../agent';
import type { ErrorCode } from '../../../common/error-codes';
import { notFound } from '../../../common/refusal';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { PrincipalsService } from '../../auth';
import { ConfigurationsService, type ConfigurationSettings } from '../../configurations';
import type { PageAccess } from '../../content';
import {
  DecidedRuns,
  RunSettler,
  type ClaimedRun,
  type DecidedCheckpoint,
  type DecisionToCarryOut,
} from '../../runs';
import type { DecisionView } from '../core/decision-view';
import { DecisionsRepository } from '../persistence/decisions.repository';
import { DeciderGate } from './decider-gate';

type Opened = ReturnType<DecidedRuns['openDecided']>;

/** What the checks of a pickup need, read for every run it took at once. */
interface Facts {
  readonly decisions: ReadonlyMap<string, DecisionView>;
  readonly configurations: ReadonlyMap<number, ConfigurationSettings>;
  /** The deciders and the runs' owners, by id. */
  readonly users: ReadonlyMap<number, AuthUser>;
  readonly pages: ReadonlyMap<number, PageAccess>;
}

/** Why a process run meeting four-eyes stopped (the inline path says the same). */
export const PROCESS_STOPPED_MESSAGE = 'Stopped: the configuration now requires a second approver';

/**
 * The durable path's second half, as policy: for each recorded decision the runs module
 * claimed for this process, check 7 (no process run under four-eyes) and checks 12-14 against the stored decision (and the configuration,
 * which may have changed since), then the run is carried out or handed back to its waiting
 * state with the refusal's code (DecidedRuns).
 */
@Injectable()
export class RecordedDecisions {
  private readonly logger = new Logger(RecordedDecisions.name);

  constructor(
    private readonly decided: DecidedRuns,
    private readonly decisions: DecisionsRepository,
    private readonly configurations: ConfigurationsService,
    private readonly principals: PrincipalsService,
    private readonly gate: DeciderGate,
    private readonly settler: RunSettler,
  ) {}

  /**
   * Picks up at most `limit` recorded decisions; with `olderThanSeconds` only those recorded at
   * least that long ago (the API's reconcile when no worker is live). Returns the runs it took
   * (carried out in this process, or handed back). What the checks need of every run taken is
   * read at once (`factsFor`), then each is carried out in turn.
   */
  async pickUp(claimedBy: string, limit: number, olderThanSeconds = 0): Promise<ClaimedRun[]> {
    const claimed = await this.decided.claimRecorded(claimedBy, limit, olderThanSeconds);
    if (claimed.length === 0) return [];
    const opened = claimed.map((claim) => ({ claim, decided: this.decided.openDecided(claim) }));
    const facts = await this.factsFor(opened);
    const admitted: DecisionToCarryOut[] = [];
    for (const { claim, decided } of opened) {
      try {
        const entry = await this.checked(claim, decided, 'fresh', facts);
        if (entry) admitted.push(entry);
      } catch (e) {
        this.logger.error({ runId: claim.run.id, err: e }, 'recorded decision could not be carried out');
      }
    }
    try {
      await this.decided.carryOut(admitted);
    } catch (e) {
      // why: the runs stay claimed under this process's lease; once it runs out the reaper
      // requeues them and a worker resumes each (`resume`).
      const runIds = admitted.map((a) => a.claim.run.id);
      this.logger.error({ runIds, err: e }, 'recorded decisions could not be carried out');
    }
    return claimed;
  }

  /**
   * Continues a run requeued while it held a decision (its checkpoint still `decided`): where
   * the decision's step was never recorded, checks 12-14 never ran either (its worker was cut
   * off right after the claim), so they run here first.
   */
  async resume(claim: ClaimedRun): Promise<void> {
    const decided = this.decided.openDecided(claim);
    const entry = await this.checked(claim, decided, 'requeued', await this.factsFor([{ claim, decided }]));
    if (entry) await this.decided.carryOut([entry]);
  }

  /**
   * The decisions, configurations, deciders and owners, and gate pages of the runs taken, one statement
   * each whatever their number (the configuration two: its skills). why: a pickup takes several
   * runs per claim, and a statement costs the worker far more than a row.
   */
  private async factsFor(opened: ReadonlyArray<{ claim: ClaimedRun; decided: Opened }>): Promise<Facts> {
    const usable = opened.flatMap(({ decided }) => ('unusable' in decided ? [] : [decided]));
    const [decisions, configurations] = await Promise.all([
      this.decisions.findByIds(usable.map((d) => d.decisionId)),
      this.configurations.getByIds(opened.map(({ claim }) => claim.run.configurationId)),
    ]);
    const byId = new Map<string, DecisionView>(decisions.map((d) => [d.id, d]));
    // why: a denial writes nothing, so only approvals and inputs meet the decider gate.
    const gated = usable.filter(
      (d) => d.decision.kind !== 'deny' && byId.get(d.decisionId)?.decidedBy != null,
    );
    // why: the owners with the deciders: each continuation acts as its run's owner.
    const [users, pages] = await Promise.all([
      this.principals.loadMany([
        ...gated.map((d) => byId.get(d.decisionId)!.decidedBy!),
        ...opened.map(({ claim }) => claim.run.ownerId),
      ]),
      this.gate.pagesFor(gated.map((d) => d.state.pending as PendingTurn)),
    ]);
    return { decisions: byId, configurations, users, pages };
  }

  /**
   * Check 7 and checks 12-14 for one claimed decision: the run stopped, failed or handed back
   * where one refuses (null), else what to carry it out with. A fresh pickup has no step yet; a
   * requeued run may have one (its checks then passed).
   */
  private async checked(
    claim: ClaimedRun,
    decided: Opened,
    pickup: 'fresh' | 'requeued',
    facts: Facts,
  ): Promise<DecisionToCarryOut | null> {
    if ('unusable' in decided) {
      await this.decided.fail(claim, decided.unusable);
      return null;
    }
    const decision = facts.decisions.get(decided.decisionId) ?? null;
    if (!decision && pickup === 'requeued') {
      await this.decided.fail(claim, 'The recorded decision is missing');
      return null;
    }
    const stepRecorded = pickup === 'requeued' && (await this.decided.stepRecorded(claim));
    const configuration = facts.configurations.get(claim.run.configurationId);
    if (!configuration) throw notFound('Configuration not found');
    if (!stepRecorded) {
      // why: as on the inline path (check 7): a process run that meets four-eyes is stopped,
      // whatever the decision; the configuration may have changed since it was recorded.
      if (claim.run.processPin !== null && configuration.requireSecondApprover && !configuration.deletedAt) {
        await this.settler.settle(
          { lease: claim.lease },
          { kind: 'FAILED', reason: 'APPROVAL_DENIED', message: PROCESS_STOPPED_MESSAGE },
        );
        this.logger.warn({ runId: claim.run.id }, 'process run stopped: four-eyes on its configuration');
        return null;
      }
      const refusal = this.refusal(claim, decided, decision, configuration, facts);
      if (refusal) {
        if (await this.decided.handBack(claim, decided, refusal)) {
          this.logger.warn({ runId: claim.run.id, code: refusal }, 'recorded decision handed back');
        }
        return null;
      }
    }
    return {
      claim,
      decided,
      how: {
        deciderId: decision!.decidedBy,
        configuration,
        stepRecorded,
        owner: facts.users.get(claim.run.ownerId),
      },
    };
  }

  /** Checks 12-14 against the stored decision; the hand-back code, or null to go on. */
  private refusal(
    claim: ClaimedRun,
    decided: DecidedCheckpoint,
    decision: DecisionView | null,
    configuration: ConfigurationSettings,
    facts: Facts,
  ): ErrorCode | null {
    if (!decision) return 'NOT_AUDITABLE';
    if (configuration.deletedAt) return 'CONFIGURATION_GONE';
    if (!configuration.isActive) return 'CONFIGURATION_INACTIVE';
    const turnDigest = claim.run.turnDigest;
    if (!turnDigest || !digestsEqual(turnDigest, decision.turnDigest)) return 'STALE_TURN';
    if (decided.decision.kind === 'deny') return null;
    const decider = decision.decidedBy === null ? null : facts.users.get(decision.decidedBy);
    const pending = decided.state.pending as PendingTurn;
    if (!decider || !DeciderGate.permitsWith(decider, pending, facts.pages)) {
      return pending.kind === 'INPUT' ? 'SUBMITTER_NOT_PERMITTED' : 'APPROVER_NOT_PERMITTED';
    }
    return null;
  }
}
