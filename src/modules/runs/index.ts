export { RunsModule } from './runs.module';
export { RunsService } from './application/runs.service';
export { RunRetention, type RetentionPass } from './application/run-retention';
export {
  RunLists,
  MAX_RUN_PAGE,
  type RunEdge,
  type RunPage,
  type RunListQuery,
} from './application/run-lists';
export { RunExecutor } from './application/run-executor';
export { AGENT_TOOLS } from './application/agent-tools';
export { REAP_MESSAGES, type ReapCause } from './core/reap-rule';
export { StateVault } from './application/state-vault';
export { RunEventsPublisher } from './application/run-events';
export { runAccess, mayKnowRun } from './core/run-access.policy';
export type { ClaimedRun, Lease } from './persistence/runs.repository';
export type { ReapedRun } from './persistence/run-reaping.repository';
export type { Checkpoint } from './core/checkpoint';
export { RunModel, RunStatusEnum, PendingTurnModel } from './graphql/run.model';
export { toRunModel, rowOf } from './graphql/run.mapper';
export { INBOX_TOPIC } from './application/run-events';
export { isWaiting, isTerminal, UNFINISHED_STATUSES, WAITING_STATUSES } from './core/run-status';
export { WorkSignal, WORK_TOPIC, WORK_CHANNEL } from './application/work-signal';
export { WorkerPresence } from './application/worker-presence';
export { choosePath, needsWorkerCount, type ExecutionPath } from './core/path-choice';
export { RunSettlements } from './application/run-settlements';
export { callsForViewer } from './core/pending-visibility';
export { RunSettler, type Settlement, type SettleGuard } from './application/run-settler';
export {
  RunDecisions,
  staleTurn,
  approvalExpired,
  type ClaimedDecision,
  type DecisionOnRun,
  type DecisionTake,
} from './application/run-decisions';
export type { RunView, RunStepView } from './core/run-view';
export { DecidedRuns, type DecidedCheckpoint, type DecisionToCarryOut } from './application/decided-runs';
export { QueuedRuns, type Begun, type QueuedClaim } from './application/queued-runs';
export { UNREADABLE_CHECKPOINT_MESSAGE } from './core/pickup.policy';
export type { RunSettled, RunSettlementListener } from './application/run-settlements';
export type { ClaimRider, SettleRider } from './persistence/run-rows';
export type { RunJoins, RunWithJoined } from './persistence/run-reads.repository';
export { progressTopic, type ProgressEvent } from './application/run-events';
export { asPin, MAX_PROCESS_MISSES, pinnedVersionId, resolveProcess } from './core/process-resolution';
export type {
  DropReason,
  ProcessPin,
  ProcessVersionFacts,
  SkillInvocation,
  SubjectRecord,
} from './core/process-resolution';
export type { TurnCommand, QueuedTurn } from './application/runs.service';
export { CANCELLABLE_STATUSES, type RunStatus } from './core/run-status';
export { toPendingModel } from './graphql/run.mapper';
export type { PendingView } from './application/runs.service';
export { LiveAnswers, answerSoFarTopic, type LiveAnswer } from './application/live-answers';
export { traceTopic, type TraceEvent, type TextDeltaPayload } from './application/run-events';
export { TextDeltaModel } from './graphql/run-event.model';
