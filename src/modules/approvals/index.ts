export { ApprovalsModule } from './approvals.module';
export { DecisionsService, type DecideCommand, type DecisionReceipt } from './application/decisions.service';
export { InboxService } from './application/inbox.service';
export { RecordedDecisions } from './application/recorded-decisions';
export { ApprovalExpiry } from './application/approval-expiry';
export { DenialReasonEnum } from './graphql/decision.model';
export {
  DecisionListeners,
  type DecisionListener,
  type RecordedDecision,
} from './application/decision-listeners';
export type { InboxContext, InboxEntry } from './application/inbox.service';
export type { DecisionView } from './core/decision-view';
