import { Refusal } from '../../../common/refusal';

export type DecisionKind = 'APPROVE' | 'DENY' | 'INPUT';
/** What a decision record may say: a person's decision, or the expiry's (nobody decided in time). */
export type RecordedKind = DecisionKind | 'EXPIRE';

/** The facts checks 1 to 8 of docs/decisions.md look at, read before any claim. */
export interface DecisionFacts {
  readonly kind: DecisionKind;
  readonly callerId: number;
  readonly mayRead: boolean;
  readonly mayDecide: boolean;
  readonly surface: 'api' | 'chat';
  readonly run: {
    readonly ownerId: number;
    readonly status: string;
    readonly hasState: boolean;
    readonly isProcessRun: boolean;
    /**
     * A decision on the very turn the caller decided has claimed the run already: it is
     * RUNNING or DECISION_RECORDED and still carries that turn's digest.
     */
    readonly claimedOnCallersTurn: boolean;
    /** The approval wait's deadline has passed (PostgreSQL's clock), swept or not. */
    readonly expired: boolean;
  };
  readonly configuration: {
    readonly deleted: boolean;
    readonly isActive: boolean;
    readonly requireSecondApprover: boolean;
  };
}

/** What a refusal of checks 1-8 leaves behind: nothing, or the failed process run (check 7). */
/** The facts of the checks before the configuration is read (`runChecks`). */
export type RunDecisionFacts = Omit<DecisionFacts, 'configuration'>;

export type EarlyVerdict = { readonly refusal: Refusal; readonly failRun: boolean } | null;

const NEEDED_STATUS: Record<DecisionKind, string> = {
  APPROVE: 'WAITING_FOR_APPROVAL',
  DENY: 'WAITING_FOR_APPROVAL',
  INPUT: 'WAITING_FOR_INPUT',
};

/**
 * Checks 1 to 8 (with 3a, the deadline, after the state check), in the design's order; the first that applies wins. Everything here refuses
 * before anything is claimed; only check 7 (a process run meeting four-eyes) asks the caller
 * to fail the run, guarded on its waiting state. Check 3 answers ALREADY_RESUMING instead of
 * RUN_NOT_WAITING where another decision has just claimed the turn the caller decided (the
 * outcome of check 11, seen early).
 */
export function earlyChecks(f: DecisionFacts): EarlyVerdict {
  return runChecks(f) ?? configurationChecks(f);
}

/**
 * Checks 1 to 4 (with 3a): the ones that need nothing of the configuration, so a decision they
 * refuse (a late click on a run another decision claimed) costs no configuration read.
 * `earlyChecks` is this, then the configuration's checks, in the same order.
 */
export function runChecks(f: RunDecisionFacts): EarlyVerdict {
  const refuse = (refusal: Refusal, failRun = false): EarlyVerdict => ({ refusal, failRun });
  if (!f.mayRead && !f.mayDecide) return refuse(new Refusal('NOT_FOUND', 'Run not found'));
  if (!f.mayDecide) return refuse(new Refusal('FORBIDDEN', 'You may read this run but not decide it'));
  if (!f.run.hasState || f.run.status !== NEEDED_STATUS[f.kind]) {
    // why: a decision that reads the run just after a concurrent one claimed the same turn lost
    // the same race as one that loses at the claim (check 11): it gets the same answer.
    if (f.run.claimedOnCallersTurn) {
      return refuse(new Refusal('ALREADY_RESUMING', 'Another decision on this run was taken first'));
    }
    return refuse(
      new Refusal('RUN_NOT_WAITING', `The run is ${f.run.status}, not waiting for this decision`, {
        status: f.run.status,
      }),
    );
  }
  // why: right after the state check: the run still waits, but no longer for anyone's decision.
  if (f.run.expired) {
    return refuse(new Refusal('APPROVAL_EXPIRED', 'The deadline for this decision has passed'));
  }
  if (f.run.isProcessRun && (f.callerId !== f.run.ownerId || f.surface !== 'chat')) {
    return refuse(
      new Refusal('PROCESS_RUN_DECIDED_IN_CHAT', 'A process run is decided by its initiator, in the chat'),
    );
  }
  return null;
}

/** Checks 5 to 8, on the run's configuration, once `runChecks` passed. */
function configurationChecks(f: DecisionFacts): EarlyVerdict {
  const refuse = (refusal: Refusal, failRun = false): EarlyVerdict => ({ refusal, failRun });
  if (f.configuration.deleted)
    return refuse(new Refusal('CONFIGURATION_GONE', 'The configuration was deleted'));
  if (!f.configuration.isActive) {
    return refuse(new Refusal('CONFIGURATION_INACTIVE', 'The configuration is inactive'));
  }
  if (f.run.isProcessRun && f.configuration.requireSecondApprover) {
    return refuse(
      new Refusal(
        'PROCESS_STOPPED_SECOND_APPROVER',
        'The configuration now requires a second approver; the process run was stopped',
      ),
      true,
    );
  }
  if (f.kind === 'APPROVE' && f.configuration.requireSecondApprover && f.callerId === f.run.ownerId) {
    return refuse(
      new Refusal('SELF_APPROVAL_DENIED', 'Someone other than the initiator must approve this run'),
    );
  }
  return null;
}
