export { WorkerModule } from './worker.module';
export { QueuedRunPicker, PICKUP_POLL_MS } from './application/queued-run-picker';
export { ReaperService, REAP_BATCH, reapedMessage } from './application/reaper.service';
export { WorkerHeartbeat, HEARTBEAT_INTERVAL_MS } from './application/worker-heartbeat';
export { WorkerStatusService, type WorkerStatus } from './application/worker-status.service';
export {
  isHealthy,
  healthProblems,
  MAX_HEALTHY_WAIT_SECONDS,
  type WorkerFigures,
} from './core/worker-health';
