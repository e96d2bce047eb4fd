import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { DecisionListeners, InboxService, type RecordedDecision } from '../../approvals';
import { PrincipalsService } from '../../auth';
import {
  callsForViewer,
  isTerminal,
  isWaiting,
  RunSettlements,
  RunsService,
  type RunSettled,
} from '../../runs';
import {
  decisionRecordedData,
  runExpiredData,
  runLink,
  runSettledData,
  runWaitingData,
  type ApproverFact,
} from '../core/payloads';
import { WebhookOutbox } from './webhook-outbox';

/** A waiting event names at most this many approvers (and says when there were more). */
export const MAX_APPROVERS = 100;

/** The event a settle reports, if any. */
function settleEventType(event: RunSettled): 'run.waiting' | 'run.settled' | null {
  if (isWaiting(event.status)) return 'run.waiting';
  return isTerminal(event.status) ? 'run.settled' : null;
}

/**
 * Turns what happens to runs into outbox events, inside the transaction of the change: the
 * settle (RunSettlements: a run starts waiting, or finishes) and the decision record
 * (DecisionListeners). Who may decide a waiting run, and what they see of it, is the inbox's
 * answer for each candidate (InboxService.entryIn), read once per event.
 */
@Injectable()
export class RunWebhooks implements OnModuleInit {
  constructor(
    private readonly outbox: WebhookOutbox,
    private readonly settlements: RunSettlements,
    private readonly decisions: DecisionListeners,
    private readonly runs: RunsService,
    private readonly inbox: InboxService,
    private readonly principals: PrincipalsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.settlements.register({
      onRunSettled: (e) => this.onRunSettled(e),
      listensTo: (e) => this.listensTo(e),
    });
    this.decisions.register({
      onDecisionRecorded: (e) => this.onDecisionRecorded(e),
      listensTo: (kind) => this.outbox.listensTo(decisionEventType(kind)),
    });
  }

  async onRunSettled(event: RunSettled): Promise<void> {
    const type = settleEventType(event);
    if (type === 'run.waiting') {
      await this.outbox.record({ type, runId: event.runId, data: () => this.waiting(event) });
    } else if (type === 'run.settled') {
      await this.outbox.record({ type, runId: event.runId, data: () => this.settled(event) });
    }
  }

  /** Whether a settle like `event` would queue a delivery: an enabled endpoint takes its type. */
  async listensTo(event: RunSettled): Promise<boolean> {
    const type = settleEventType(event);
    return type !== null && this.outbox.listensTo(type);
  }

  async onDecisionRecorded({ decision }: RecordedDecision): Promise<void> {
    const type = decisionEventType(decision.kind);
    await this.outbox.record({
      type,
      runId: decision.runId,
      data: () =>
        Promise.resolve(type === 'run.expired' ? runExpiredData(decision) : decisionRecordedData(decision)),
    });
  }

  private async waiting(event: RunSettled): Promise<Record<string, unknown>> {
    const context = await this.inbox.sharedContext({ runId: event.runId });
    if (!context) throw new Error(`run ${event.runId} settled but cannot be read in its transaction`);
    const { run, turn } = context;
    const candidates = await this.principals.candidateDeciders(run.ownerId, MAX_APPROVERS + 1);
    const approvers: ApproverFact[] = candidates.slice(0, MAX_APPROVERS).flatMap((user) => {
      const entry = this.inbox.entryIn(user, context);
      return entry
        ? [
            {
              id: user.id,
              username: user.username,
              displayName: user.displayName,
              mayApprove: entry.mayApprove,
            },
          ]
        : [];
    });
    // why: the rules of an approver who may read no detail and show no page: the webhook's
    // receiver is not any one approver, so it gets what every approver may see.
    const calls = callsForViewer(turn?.calls ?? [], { detail: false, showablePageIds: new Set() });
    return runWaitingData({
      runId: run.id,
      status: event.status,
      turn,
      ownerId: run.ownerId,
      configurationId: run.configurationId,
      calls,
      approvers,
      approversTruncated: candidates.length > MAX_APPROVERS,
      link: runLink(this.config.webhooks.publicClientUrl, run.id),
    });
  }

  private async settled(event: RunSettled): Promise<Record<string, unknown>> {
    const run = await this.runs.findRunById(event.runId);
    if (!run) throw new Error(`run ${event.runId} settled but cannot be read in its transaction`);
    return runSettledData({
      runId: run.id,
      status: event.status,
      terminationReason: run.terminationReason,
      ownerId: run.ownerId,
      stepCount: run.stepCount,
      link: runLink(this.config.webhooks.publicClientUrl, run.id),
    });
  }
}

/** The event a decision record makes. why: an expiry is recorded as a decision of kind EXPIRE, but nobody decided. */
function decisionEventType(kind: string): 'run.expired' | 'decision.recorded' {
  return kind === 'EXPIRE' ? 'run.expired' : 'decision.recorded';
}
