export { ApprovalsModule } from './approvals.module';
export { DecisionsService, type DecideCommand, type DecisionReceipt } from './application/decisions.service';
export { InboxService } from './application/inbox.service';
export { RecordedDecisions } from './application/recorded-decisions';
export { ApprovalExpiry } from './application/approval-expiry';
export { DenialReasonEnum } from './graphql/decision.model';
