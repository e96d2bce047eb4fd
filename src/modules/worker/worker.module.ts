import { DynamicModule, Module } from '@nestjs/common';
import { ApprovalsModule } from '../approvals';
import { ConfigurationsModule } from '../configurations';
import { RunsModule } from '../runs';
import { WebhooksModule } from '../webhooks';
import { DecisionReconciler } from './application/decision-reconciler';
import { QueuedRunPicker } from './application/queued-run-picker';
import { ReaperService } from './application/reaper.service';
import { RetentionSweep } from './application/retention-sweep';
import { ExpirySweep } from './application/expiry-sweep';
import { RunCensusReporter } from './application/run-census-reporter';
import { WorkerHeartbeat } from './application/worker-heartbeat';
import { WORKER_PROCESS_KIND, WorkerLifecycle } from './application/worker-lifecycle';
import { WorkerStatusService } from './application/worker-status.service';
import { WorkListener } from './application/work-listener';
import { WebhookDeliveryLoop } from './application/webhook-delivery-loop';
import { WorkerStatusResolver } from './graphql/worker-status.resolver';
import { WorkBacklogRepository } from './persistence/work-backlog.repository';

/**
 * The worker of this process: the pickup of queued runs and recorded decisions, the reaper,
 * the heartbeat and the wake-ups (WorkerLifecycle starts them unless WORKER_ENABLED=false, when
 * only the reconcile of overdue decisions runs), and the `workerStatus` query. Imported as is
 * by the server (AppModule); `forWorkerProcess()` in the worker process (src/worker.ts).
 */
@Module({
  imports: [RunsModule, ConfigurationsModule, ApprovalsModule, WebhooksModule],
  providers: [
    WorkBacklogRepository,
    WorkerHeartbeat,
    QueuedRunPicker,
    ReaperService,
    RetentionSweep,
    ExpirySweep,
    DecisionReconciler,
    WorkListener,
    WebhookDeliveryLoop,
    WorkerLifecycle,
    WorkerStatusService,
    WorkerStatusResolver,
    RunCensusReporter,
  ],
  exports: [
    QueuedRunPicker,
    ReaperService,
    RetentionSweep,
    ExpirySweep,
    WorkerHeartbeat,
    WorkerStatusService,
  ],
})
export class WorkerModule {
  /** The worker of a worker process: its heartbeat is named `worker:<host>:<pid>`. */
  static forWorkerProcess(): DynamicModule {
    return { module: WorkerModule, providers: [{ provide: WORKER_PROCESS_KIND, useValue: 'worker' }] };
  }
}
