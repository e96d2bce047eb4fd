import { WorkerPresence } from './application/worker-presence';
import { WorkerHeartbeatRepository } from './persistence/worker-heartbeat.repository';
import { Module } from '@nestjs/common';
import { AuthModule } from '../auth';
import { ConfigurationsModule } from '../configurations';
import { ContentModule } from '../content';
import { RunExecutor } from './application/run-executor';
import { LiveAnswers } from './application/live-answers';
import { RunEventsPublisher } from './application/run-events';
import { RunTraceService } from './application/run-trace.service';
import { RunProgressService } from './application/run-progress.service';
import { RunProgressResolver } from './graphql/run-progress.resolver';
import { RunsService } from './application/runs.service';
import { StateVault } from './application/state-vault';
import { RunSettlements } from './application/run-settlements';
import { RunSettler } from './application/run-settler';
import { RunDecisions } from './application/run-decisions';
import { DecidedRuns } from './application/decided-runs';
import { QueuedRuns } from './application/queued-runs';
import { WorkSignal } from './application/work-signal';
import { RunEventsResolver } from './graphql/run-events.resolver';
import { RunConnectionResolver } from './graphql/run-connection.resolver';
import { RunsResolver } from './graphql/runs.resolver';
import { RunsRepository } from './persistence/runs.repository';
import { RunReadsRepository } from './persistence/run-reads.repository';
import { RunListsRepository } from './persistence/run-lists.repository';
import { RunLists } from './application/run-lists';
import { RunRetentionRepository } from './persistence/run-retention.repository';
import { RunRetention } from './application/run-retention';
import { RunClaimsRepository } from './persistence/run-claims.repository';
import { RunAdmissionRepository } from './persistence/run-admission.repository';
import { RunReapingRepository } from './persistence/run-reaping.repository';
import { RunSettlingRepository } from './persistence/run-settling.repository';
import { RunAdmission } from './application/run-admission';
import { agentToolsProvider } from './application/agent-tools';
import { RunUsageRepository } from './persistence/run-usage.repository';
import { RunBudget } from './application/run-budget';

@Module({
  imports: [AuthModule, ConfigurationsModule, ContentModule],
  providers: [
    RunsRepository,
    RunReadsRepository,
    RunListsRepository,
    RunLists,
    RunRetentionRepository,
    RunRetention,
    RunClaimsRepository,
    RunAdmissionRepository,
    RunReapingRepository,
    RunSettlingRepository,
    RunAdmission,
    RunUsageRepository,
    RunBudget,
    agentToolsProvider,
    RunSettlements,
    RunSettler,
    RunDecisions,
    DecidedRuns,
    QueuedRuns,
    StateVault,
    WorkSignal,
    RunEventsPublisher,
    LiveAnswers,
    RunExecutor,
    WorkerHeartbeatRepository,
    WorkerPresence,
    RunsService,
    RunTraceService,
    RunProgressService,
    RunProgressResolver,
    RunsResolver,
    RunConnectionResolver,
    RunEventsResolver,
  ],
  exports: [
    RunLists,
    RunRetention,
    RunSettlements,
    RunSettler,
    RunDecisions,
    DecidedRuns,
    QueuedRuns,
    RunsService,
    RunExecutor,
    StateVault,
    RunEventsPublisher,
    LiveAnswers,
    WorkSignal,
    WorkerPresence,
  ],
})
export class RunsModule {}
