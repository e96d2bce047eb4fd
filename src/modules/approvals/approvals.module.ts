import { Module } from '@nestjs/common';
import { AuthModule } from '../auth';
import { ConfigurationsModule } from '../configurations';
import { ContentModule } from '../content';
import { RunsModule } from '../runs';
import { DecisionListeners } from './application/decision-listeners';
import { DecisionBookkeeping } from './application/decision-bookkeeping';
import { DeciderGate } from './application/decider-gate';
import { DecisionReads } from './application/decision-reads';
import { DecisionsService } from './application/decisions.service';
import { DecisionRecords } from './application/decision-records';
import { InboxService } from './application/inbox.service';
import { RecordedDecisions } from './application/recorded-decisions';
import { InboxConnectionResolver } from './graphql/inbox-connection.resolver';
import { DecisionsResolver } from './graphql/decisions.resolver';
import { InboxChangedResolver } from './graphql/inbox-changed.resolver';
import { DecisionsRepository } from './persistence/decisions.repository';
import { ApprovalVotesRepository } from './persistence/approval-votes.repository';
import { ApprovalQuorum } from './application/approval-quorum';
import { ApprovalExpiry } from './application/approval-expiry';
import { PendingApprovalsResolver } from './graphql/pending-approvals.resolver';

@Module({
  imports: [AuthModule, ConfigurationsModule, ContentModule, RunsModule],
  providers: [
    DecisionsRepository,
    ApprovalVotesRepository,
    ApprovalQuorum,
    ApprovalExpiry,
    PendingApprovalsResolver,
    DeciderGate,
    DecisionReads,
    DecisionsService,
    DecisionRecords,
    DecisionListeners,
    RecordedDecisions,
    DecisionBookkeeping,
    InboxService,
    DecisionsResolver,
    InboxConnectionResolver,
    InboxChangedResolver,
  ],
  exports: [DecisionsService, InboxService, RecordedDecisions, DecisionListeners, ApprovalExpiry],
})
export class ApprovalsModule {}
